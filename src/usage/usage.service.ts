import { Injectable } from '@nestjs/common';

import { Principal } from '../auth/principal';
import { badRequest } from '../common/errors';
import { LATENCY_BUCKETS } from '../request-logs/usage-rollups';
import { USAGE_GROUPS, UsageGroup, UsageMetricsDto, UsageQuery, UsageReportDto, UsageRowDto } from './dto/usage.dto';
import { latencyPercentile } from './latency-percentiles';
import { addDecimals } from './pricing/decimal';
import { GroupColumn, ProjectInScope, UsageRepository, UsageSums } from './usage.repository';
import { workspaceReachedBy } from './usage-reach';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const MAX_BUCKETS = { hour: 744, day: 400 } as const;
const COLUMN_OF: Record<UsageGroup, GroupColumn> = {
  prompt: 'prompt_slug',
  version: 'version',
  environment: 'environment',
  model: 'model',
  provider: 'provider_name',
  key: 'api_key_id',
  project: 'project_id',
  workspace: 'workspace_id',
};
const ADMIN_GROUPS: readonly UsageGroup[] = ['project', 'workspace'];

/** A validated report request: whole buckets, the groups, and the projects it covers. */
export interface UsageRange {
  from: Date;
  to: Date;
  bucket: 'hour' | 'day';
}

/** GET /v2/usage (docs/usage.md, "Usage API"): read from the hourly rollups, never the logs. */
@Injectable()
export class UsageService {
  constructor(private readonly repo: UsageRepository) {}

  async report(caller: Principal, query: UsageQuery): Promise<UsageReportDto> {
    const range = rangeOf(query.from, query.to, query.bucket ?? 'day');
    const groupBy = groupsOf(query.group_by, caller.kind === 'admin');
    const projects = await this.projectsOf(caller, query);
    const ids = projects.map((p) => p.id);
    const [rows, workspaces] = await Promise.all([
      this.repo.grouped(
        ids,
        range.from,
        range.to,
        range.bucket,
        groupBy.map((g) => COLUMN_OF[g]),
      ),
      caller.kind === 'admin' ? this.repo.perWorkspace(ids, range.from, range.to) : Promise.resolve(undefined),
    ]);
    // Which models are unpriced is asked only when some call was: usually no second read.
    const unpriced = rows.some((row) => row.unpricedCalls > 0) ? await this.repo.unpriced(ids, range.from, range.to) : [];
    const projectById = new Map(projects.map((p) => [p.id, p]));
    const workspaceSlug = new Map(projects.map((p) => [p.workspaceId, p.workspaceSlug]));
    const step = range.bucket === 'hour' ? HOUR_MS : DAY_MS;
    const data: UsageRowDto[] = rows.map((row) => {
      const out: UsageRowDto = {
        start: row.start.toISOString(),
        end: new Date(row.start.getTime() + step).toISOString(),
        ...metricsOf(row),
      };
      for (const group of groupBy) {
        const value = row.groups[COLUMN_OF[group]] ?? null;
        if (group === 'key') out.keyId = value as string | null;
        else if (group === 'project') {
          const project = projectById.get(value as string);
          out.project = project?.slug ?? String(value);
          out.workspace = project?.workspaceSlug ?? out.workspace;
        } else if (group === 'workspace') out.workspace = workspaceSlug.get(value as string) ?? String(value);
        else if (group === 'version') out.version = value === null ? null : Number(value);
        else (out as unknown as Record<string, unknown>)[group] = value;
      }
      return out;
    });
    return {
      object: 'usage.report',
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      bucket: range.bucket,
      groupBy,
      data,
      totals: metricsOf(total(rows)),
      unpriced,
      ...(workspaces
        ? { workspaces: workspaces.map((w) => ({ workspace: workspaceSlug.get(w.workspaceId) ?? w.workspaceId, ...metricsOf(w) })) }
        : {}),
    };
  }

  /** A project key sees its own project; the admin key any, narrowed by workspace and project. */
  private async projectsOf(caller: Principal, query: UsageQuery): Promise<ProjectInScope[]> {
    if (caller.kind === 'project') {
      if (query.workspace !== undefined || query.project !== undefined) {
        throw badRequest('Invalid request parameters', [
          'workspace, project: only with the admin key (a project key reports on its own project)',
        ]);
      }
      return [{ id: caller.projectId, slug: caller.projectSlug, workspaceId: caller.workspaceId, workspaceSlug: caller.workspaceSlug }];
    }
    if (query.project !== undefined && query.workspace === undefined)
      throw badRequest('Invalid request parameters', ['project: needs workspace']);
    return this.repo.projectsInScope(workspaceReachedBy(caller, query.workspace), query.project);
  }
}

/** Whole buckets covering [from, to); 400 when the range is empty or too long for the bucket. */
export function rangeOf(fromText: string, toText: string | undefined, bucket: 'hour' | 'day'): UsageRange {
  const step = bucket === 'hour' ? HOUR_MS : DAY_MS;
  const fromMs = Date.parse(fromText);
  const toMs = toText === undefined ? Date.now() : Date.parse(toText);
  if (!(toMs > fromMs)) throw badRequest('Invalid request parameters', ['to: must be after from']);
  const from = Math.floor(fromMs / step) * step;
  const to = Math.ceil(toMs / step) * step;
  if ((to - from) / step > MAX_BUCKETS[bucket]) {
    throw badRequest('Invalid request parameters', [`from, to: at most ${MAX_BUCKETS[bucket]} ${bucket} buckets`]);
  }
  return { from: new Date(from), to: new Date(to), bucket };
}

function groupsOf(text: string | undefined, admin: boolean): UsageGroup[] {
  if (text === undefined || text.trim() === '') return [];
  const names = text.split(',').map((name) => name.trim());
  const problems: string[] = [];
  for (const name of names) {
    if (!(USAGE_GROUPS as readonly string[]).includes(name)) problems.push(`group_by: "${name}" is not one of ${USAGE_GROUPS.join(', ')}`);
    else if (!admin && ADMIN_GROUPS.includes(name as UsageGroup)) problems.push(`group_by: "${name}" needs the admin key`);
  }
  if (problems.length > 0) throw badRequest('Invalid request parameters', problems);
  return [...new Set(names)] as UsageGroup[];
}

function total(rows: UsageSums[]): UsageSums {
  const latency = new Array<number>(LATENCY_BUCKETS).fill(0);
  for (const row of rows) row.latency.forEach((n, i) => (latency[i] += n));
  const sum = (pick: (row: UsageSums) => number) => rows.reduce((acc, row) => acc + pick(row), 0);
  return {
    calls: sum((r) => r.calls),
    errors: sum((r) => r.errors),
    partialCalls: sum((r) => r.partialCalls),
    unpricedCalls: sum((r) => r.unpricedCalls),
    uncachedInput: sum((r) => r.uncachedInput),
    cacheRead: sum((r) => r.cacheRead),
    cacheWrite: sum((r) => r.cacheWrite),
    reasoning: sum((r) => r.reasoning),
    output: sum((r) => r.output),
    costUsd: addDecimals(rows.map((r) => r.costUsd)),
    latency,
  };
}

function metricsOf(sums: UsageSums): UsageMetricsDto {
  const { uncachedInput, cacheRead, cacheWrite, reasoning, output } = sums;
  return {
    calls: sums.calls,
    errors: sums.errors,
    partialCalls: sums.partialCalls,
    unpricedCalls: sums.unpricedCalls,
    tokens: { uncachedInput, cacheRead, cacheWrite, reasoning, output, total: uncachedInput + cacheRead + cacheWrite + reasoning + output },
    costUsd: sums.costUsd,
    latencyMs: { p50: latencyPercentile(sums.latency, 0.5), p95: latencyPercentile(sums.latency, 0.95) },
  };
}
