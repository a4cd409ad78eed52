import { Injectable } from '@nestjs/common';

import type { AdminPrincipal } from '../auth/principal';
import { openaiError } from '../common/errors';
import { GroupColumn, UsageGroupRow, UsageRepository } from './usage.repository';
import { workspaceReachedBy } from './usage-reach';

type Query = Record<string, unknown>;
const HOUR = 3600;
const DAY = 86_400;

/** A parameter OpenAI's SDK may send as `name=a&name=b` or `name[]=a`. */
function listOf(query: Query, name: string): string[] | undefined {
  const value = query[name] ?? query[`${name}[]`];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).map(String);
}

function invalid(message: string, param: string) {
  return openaiError(400, message, { param });
}

function intOf(query: Query, name: string, fallback?: number): number {
  const raw = query[name];
  if (raw === undefined && fallback !== undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(n))
    throw invalid(`${name} must be a whole number (Unix seconds for times)`, name);
  return n;
}

interface Page<T> {
  object: 'page';
  data: Array<{ object: 'bucket'; start_time: number; end_time: number; results: T[] }>;
  has_more: boolean;
  next_page: string | null;
}

/**
 * OpenAI's organization usage and costs endpoints over the hourly rollups (docs/usage.md,
 * "OpenAI-shaped endpoints"), for dashboards written for OpenAI's API. Every project is one of
 * the organization's (a workspace admin key's organization is its workspace); a Parley API key id
 * is an `api_key_id`.
 */
@Injectable()
export class OpenAIUsageService {
  constructor(private readonly repo: UsageRepository) {}

  async completions(caller: AdminPrincipal, query: Query): Promise<Page<Record<string, unknown>>> {
    const width = String(query.bucket_width ?? '1d');
    if (width !== '1h' && width !== '1d') throw invalid('bucket_width must be 1h or 1d (usage is kept per hour)', 'bucket_width');
    for (const unsupported of ['user_ids', 'api_key_ids', 'models', 'batch']) {
      if (listOf(query, unsupported)) throw invalid(`${unsupported} is not supported; group_by the dimension instead`, unsupported);
    }
    const groups = this.groupsOf(query, ['project_id', 'api_key_id', 'model', 'user_id', 'batch']);
    const columns = groups.filter((g): g is GroupColumn => g === 'project_id' || g === 'api_key_id' || g === 'model');
    return this.page(caller, query, width === '1h' ? HOUR : DAY, width === '1h' ? 24 : 7, width === '1h' ? 168 : 31, columns, (row) => ({
      object: 'organization.usage.completions.result',
      input_tokens: row.uncachedInput + row.cacheRead + row.cacheWrite,
      output_tokens: row.output + row.reasoning,
      input_cached_tokens: row.cacheRead,
      input_audio_tokens: 0,
      output_audio_tokens: 0,
      num_model_requests: row.calls,
      project_id: groups.includes('project_id') ? (row.groups.project_id ?? null) : null,
      user_id: null,
      api_key_id: groups.includes('api_key_id') ? (row.groups.api_key_id ?? null) : null,
      model: groups.includes('model') ? (row.groups.model ?? null) : null,
      batch: null,
    }));
  }

  async costs(caller: AdminPrincipal, query: Query): Promise<Page<Record<string, unknown>>> {
    if ((query.bucket_width ?? '1d') !== '1d') throw invalid('bucket_width must be 1d', 'bucket_width');
    const groups = this.groupsOf(query, ['project_id', 'line_item']);
    const columns: GroupColumn[] = [
      ...(groups.includes('project_id') ? ['project_id' as const] : []),
      ...(groups.includes('line_item') ? ['model' as const] : []),
    ];
    return this.page(caller, query, DAY, 7, 180, columns, (row) => ({
      object: 'organization.costs.result',
      amount: { value: Number(row.costUsd), currency: 'usd' },
      line_item: groups.includes('line_item') ? (row.groups.model ?? null) : null,
      project_id: groups.includes('project_id') ? (row.groups.project_id ?? null) : null,
    }));
  }

  private groupsOf(query: Query, allowed: string[]): string[] {
    const groups = listOf(query, 'group_by') ?? [];
    for (const group of groups) if (!allowed.includes(group)) throw invalid(`group_by must be among ${allowed.join(', ')}`, 'group_by');
    return groups;
  }

  /** Every bucket from start_time (or the page) on, `limit` of them at most, empty ones included as OpenAI answers them. */
  private async page<T>(
    caller: AdminPrincipal,
    query: Query,
    step: number,
    defaultLimit: number,
    maxLimit: number,
    columns: GroupColumn[],
    map: (row: UsageGroupRow) => T,
  ): Promise<Page<T>> {
    const start = Math.floor(intOf(query, 'start_time') / step) * step;
    const end = Math.ceil(intOf(query, 'end_time', Math.ceil(Date.now() / 1000)) / step) * step;
    const limit = intOf(query, 'limit', defaultLimit);
    if (limit < 1 || limit > maxLimit) throw invalid(`limit must be from 1 to ${maxLimit}`, 'limit');
    const from = query.page === undefined ? start : intOf(query, 'page');
    if (end <= start || from < start) throw invalid('end_time must be after start_time', 'end_time');
    const to = Math.min(end, from + limit * step);
    const projects = listOf(query, 'project_ids');
    const ids = (await this.repo.projectsInScope(workspaceReachedBy(caller, undefined)))
      .map((p) => p.id)
      .filter((id) => !projects || projects.includes(id));
    const rows =
      ids.length === 0
        ? []
        : await this.repo.grouped(ids, new Date(from * 1000), new Date(to * 1000), step === HOUR ? 'hour' : 'day', columns);
    const data: Page<T>['data'] = [];
    for (let at = from; at < to; at += step) {
      data.push({
        object: 'bucket',
        start_time: at,
        end_time: at + step,
        results: rows.filter((row) => row.start.getTime() / 1000 === at).map(map),
      });
    }
    return { object: 'page', data, has_more: to < end, next_page: to < end ? String(to) : null };
  }
}
