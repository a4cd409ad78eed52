import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ProjectPrincipal } from '../auth/principal';
import { badRequest, notFound } from '../common/errors';
import { isUuid } from '../common/ids';
import { isSlugLike } from '../common/validation';
import { pageLimit, toPage } from '../common/pagination';
import { RequestLogSummaryDto } from '../messages/dto/message-response.dto';
import { RequestLogDto, RequestLogListDto, RequestLogQuery } from './dto/request-log.dto';
import { RequestLogEntity } from './request-log.entity';
import { LogFilters, RequestLogsRepository } from './request-logs.repository';
import { toRequestLogDto, toRequestLogSummary } from './request-logs.mapper';

@Injectable()
export class RequestLogsService {
  constructor(private readonly logs: RequestLogsRepository) {}

  record(log: RequestLogEntity, manager?: EntityManager): Promise<RequestLogEntity> {
    return this.logs.insert(log, manager);
  }

  async list(caller: ProjectPrincipal, query: RequestLogQuery): Promise<RequestLogListDto> {
    if (query.after !== undefined && !isUuid(query.after)) throw badRequest('Invalid request parameters', ['after: not a log id']);
    if (!this.canMatch(query)) return { object: 'list', ...toPage([], 1) };
    const limit = pageLimit(query);
    const rows = await this.logs.list(caller.projectId, this.filtersOf(query), query.order ?? 'desc', query.after, limit + 1);
    return { object: 'list', ...toPage(rows.map((row) => toRequestLogDto(row, caller)), limit) };
  }

  async get(caller: ProjectPrincipal, id: string): Promise<RequestLogDto> {
    const log = isUuid(id) ? await this.logs.findById(caller.projectId, id) : null;
    if (!log) throw notFound('Request log not found');
    return toRequestLogDto(log, caller);
  }

  async summaryFor(projectId: string, id: string): Promise<RequestLogSummaryDto | null> {
    const log = await this.logs.findById(projectId, id);
    return log ? toRequestLogSummary(log) : null;
  }

  /**
   * False when a filter names what no log can hold: a thread id that is no UUID, a slug or
   * environment that is no slug, a metadata filter with U+0000 (which bodies may not carry, and
   * which PostgreSQL would refuse as a query parameter). Such a filter matches nothing.
   */
  private canMatch(query: RequestLogQuery): boolean {
    if (query.threadId !== undefined && !isUuid(query.threadId)) return false;
    if ([query.slug, query.environment].some((filter) => filter !== undefined && !isSlugLike(filter))) return false;
    return !query.metadata?.includes('\u0000');
  }

  private filtersOf(query: RequestLogQuery): LogFilters {
    const status = query.status === undefined ? undefined : /^\d+$/.test(query.status) ? { exact: Number(query.status) } : { success: query.status === 'success' };
    const separator = query.metadata?.indexOf(':') ?? -1;
    return {
      slug: query.slug,
      environment: query.environment,
      threadId: query.threadId,
      status,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      metadata: query.metadata ? { key: query.metadata.slice(0, separator), value: query.metadata.slice(separator + 1) } : undefined,
    };
  }
}
