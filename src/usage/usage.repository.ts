import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { LATENCY_BUCKETS } from '../request-logs/usage-rollups';

/** A rollup column a report groups by. */
export type GroupColumn =
  'prompt_slug' | 'version' | 'environment' | 'model' | 'provider_name' | 'api_key_id' | 'project_id' | 'workspace_id';

export interface UsageSums {
  calls: number;
  errors: number;
  partialCalls: number;
  unpricedCalls: number;
  uncachedInput: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  output: number;
  /** Exact decimal text. */
  costUsd: string;
  latency: number[];
}

export interface UsageGroupRow extends UsageSums {
  start: Date;
  groups: Partial<Record<GroupColumn, string | number | null>>;
}

export interface ProjectInScope {
  id: string;
  slug: string;
  workspaceId: string;
  workspaceSlug: string;
}

const SUMS = `sum(r.calls) AS calls, sum(r.errors) AS errors, sum(r.partial_calls) AS partial_calls, sum(r.unpriced_calls) AS unpriced_calls,
  sum(r.uncached_input_tokens) AS uncached_input, sum(r.cache_read_tokens) AS cache_read, sum(r.cache_write_tokens) AS cache_write,
  sum(r.reasoning_tokens) AS reasoning, sum(r.output_tokens) AS output, sum(r.cost_usd)::text AS cost_usd,
  ARRAY[${Array.from({ length: LATENCY_BUCKETS }, (_, i) => `sum(r.latency_buckets[${i + 1}])`).join(', ')}] AS latency`;

type SumsRow = Record<string, unknown> & { latency: Array<string | number> };

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The columns SUMS reads, for a union of the hourly and daily rollups. */
const SUMMED = `version, calls, errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens, cache_write_tokens,
  reasoning_tokens, output_tokens, cost_usd, latency_buckets`;

/**
 * The rollups a range is read from: the daily ones when it is whole UTC days (24 times fewer rows,
 * the same sums), else the hourly ones. Either is aliased `r` with its time column as `r.hour`.
 */
function rollupsOf(from: Date, to: Date): string {
  return from.getTime() % DAY_MS === 0 && to.getTime() % DAY_MS === 0
    ? `(SELECT *, day AS hour FROM usage_rollups_daily) r`
    : 'usage_rollups r';
}

/**
 * Reads the rollups only, never request_logs (docs/usage.md, "Usage API"): every query is scoped
 * to the caller's project ids and answered from the (project_id, hour or day, ...) index.
 */
@Injectable()
export class UsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Projects an admin report covers: all, or one workspace's, or one project. */
  projectsInScope(workspaceSlug?: string, projectSlug?: string): Promise<ProjectInScope[]> {
    return this.dataSource.query(
      `SELECT p.id, p.slug, w.id AS "workspaceId", w.slug AS "workspaceSlug"
         FROM projects p JOIN workspaces w ON w.id = p.workspace_id
        WHERE ($1::text IS NULL OR w.slug = $1) AND ($2::text IS NULL OR p.slug = $2)`,
      [workspaceSlug ?? null, projectSlug ?? null],
    );
  }

  /** Sums per time bucket and group, ordered by bucket then group. */
  async grouped(projectIds: string[], from: Date, to: Date, bucket: 'hour' | 'day', groups: GroupColumn[]): Promise<UsageGroupRow[]> {
    const columns = groups.map((g) => (g === 'workspace_id' ? 'p.workspace_id' : `r.${g}`));
    const join = groups.includes('workspace_id') ? 'JOIN projects p ON p.id = r.project_id' : '';
    const select = columns.map((c, i) => `, ${c} AS g${i}`).join('');
    const groupBy = columns.map((c) => `, ${c}`).join('');
    const rows: SumsRow[] = await this.dataSource.query(
      `SELECT date_trunc($4, r.hour, 'UTC') AS start${select}, ${SUMS}
         FROM ${rollupsOf(from, to)} ${join}
        WHERE r.project_id = ANY ($1::uuid[]) AND r.hour >= $2 AND r.hour < $3
        GROUP BY 1${groupBy}
        ORDER BY 1${groupBy}`,
      [projectIds, from, to, bucket],
    );
    return rows.map((row) => ({
      start: new Date(row.start as string | Date),
      groups: Object.fromEntries(groups.map((g, i) => [g, row[`g${i}`] as string | number | null])),
      ...sumsOf(row),
    }));
  }

  /** Per workspace over the range (admin reports). */
  async perWorkspace(projectIds: string[], from: Date, to: Date): Promise<Array<UsageSums & { workspaceId: string }>> {
    const rows: SumsRow[] = await this.dataSource.query(
      `SELECT p.workspace_id, ${SUMS}
         FROM ${rollupsOf(from, to)} JOIN projects p ON p.id = r.project_id
        WHERE r.project_id = ANY ($1::uuid[]) AND r.hour >= $2 AND r.hour < $3
        GROUP BY p.workspace_id ORDER BY p.workspace_id`,
      [projectIds, from, to],
    );
    return rows.map((row) => ({ workspaceId: row.workspace_id as string, ...sumsOf(row) }));
  }

  /**
   * Sums per version of one prompt in one environment, from the hour holding `from` on (docs/experiments.md,
   * "Per-arm results"): the whole UTC days in between from the daily rollups, the hours before and after
   * them from the hourly ones; one query whatever the number of versions.
   */
  async perVersion(
    projectId: string,
    promptSlug: string,
    environment: string,
    versions: number[],
    from: Date,
    now = new Date(),
  ): Promise<Array<UsageSums & { version: number }>> {
    const hour = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS;
    const firstDay = Math.ceil(hour / DAY_MS) * DAY_MS;
    const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    // No whole day yet: an empty daily range, and every hour from the first.
    const [daysFrom, daysTo] = firstDay < today ? [firstDay, today] : [hour, hour];
    const where = 'project_id = $1 AND prompt_slug = $2 AND environment = $3 AND version = ANY ($4::int[])';
    const rows: SumsRow[] = await this.dataSource.query(
      `SELECT r.version, ${SUMS}
         FROM (SELECT ${SUMMED} FROM usage_rollups WHERE ${where} AND ((hour >= $5 AND hour < $6) OR hour >= $7)
               UNION ALL
               SELECT ${SUMMED} FROM usage_rollups_daily WHERE ${where} AND day >= $6 AND day < $7) r
        GROUP BY r.version ORDER BY r.version`,
      [projectId, promptSlug, environment, versions, new Date(hour), new Date(daysFrom), new Date(daysTo)],
    );
    return rows.map((row) => ({ version: Number(row.version), ...sumsOf(row) }));
  }

  /** Models called in the range with usage but no price. */
  async unpriced(
    projectIds: string[],
    from: Date,
    to: Date,
  ): Promise<Array<{ provider: string | null; model: string | null; calls: number }>> {
    const rows: Array<{ provider: string | null; model: string | null; calls: string }> = await this.dataSource.query(
      `SELECT r.provider_name AS provider, r.model, sum(r.unpriced_calls) AS calls
         FROM ${rollupsOf(from, to)}
        WHERE r.project_id = ANY ($1::uuid[]) AND r.hour >= $2 AND r.hour < $3 AND r.unpriced_calls > 0
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [projectIds, from, to],
    );
    return rows.map((row) => ({ provider: row.provider, model: row.model, calls: Number(row.calls) }));
  }
}

function sumsOf(row: SumsRow): UsageSums {
  return {
    calls: Number(row.calls),
    errors: Number(row.errors),
    partialCalls: Number(row.partial_calls),
    unpricedCalls: Number(row.unpriced_calls),
    uncachedInput: Number(row.uncached_input),
    cacheRead: Number(row.cache_read),
    cacheWrite: Number(row.cache_write),
    reasoning: Number(row.reasoning),
    output: Number(row.output),
    costUsd: trimDecimal(String(row.cost_usd ?? '0')),
    latency: parseArray(row.latency),
  };
}

/** node-postgres parses bigint[] into strings; PGlite may hand back the array text. */
function parseArray(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number);
  if (typeof value === 'string') return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
  return new Array<number>(LATENCY_BUCKETS).fill(0);
}

/** "0.002750000" -> "0.00275"; "5.000" -> "5". */
export function trimDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
