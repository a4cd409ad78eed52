import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { badRequest, notFound } from '../common/errors';
import { isUuid } from '../common/ids';
import { pageLimit, toPage } from '../common/pagination';
import { isSlugLike } from '../common/validation';
import { AppConfig } from '../config/app-config';
import { RequestLogDetailDto, RequestLogListDto, RequestLogQuery } from './dto/request-log.dto';
import { RequestLogSummaryDto } from './dto/request-log-summary.dto';
import { RequestLogEntity } from './request-log.entity';
import { LogFilters } from './request-log-filters';
import { toLogPreview } from './request-log-preview';
import { RequestLogWriter } from './request-log-writer';
import { toRequestLogDetailDto, toRequestLogDto, toRequestLogSummary } from './request-logs.mapper';
import { RequestLogsRepository } from './request-logs.repository';
import { ThreadMessagesSource } from './thread-messages.source';
import { restoreHistory } from './thread-range';

@Injectable()
export class RequestLogsService {
  private readonly logger = new Logger('RequestLogs');
  /** PARLEY_TRACE_URL_TEMPLATE: each log's `traceUrl` (docs/observability.md). */
  private readonly traceUrlTemplate: string | null;

  constructor(
    private readonly logs: RequestLogsRepository,
    private readonly writer: RequestLogWriter,
    private readonly threadMessages: ThreadMessagesSource,
    config: AppConfig,
  ) {
    this.traceUrlTemplate = config.telemetry.traceUrlTemplate;
  }

  /**
   * Resolves once the log is committed: in the caller's transaction when `manager` is given (an
   * assistant's thread append), otherwise group-committed with concurrent calls' logs.
   */
  async record(log: RequestLogEntity, manager?: EntityManager): Promise<RequestLogEntity> {
    if (manager) await this.logs.insert(log, manager);
    else await this.writer.write(log);
    return log;
  }

  /** Several logs in the caller's transaction, one statement (a group-committed batch of turns). */
  recordMany(logs: RequestLogEntity[], manager: EntityManager): Promise<void> {
    return this.logs.insertMany(logs, manager);
  }

  async list(caller: ProjectPrincipal, query: RequestLogQuery): Promise<RequestLogListDto> {
    if (query.after !== undefined && !isUuid(query.after)) throw badRequest('Invalid request parameters', ['after: not a log id']);
    // A version is a prompt's: without the slug it would match across prompts, and no index serves it.
    if (query.version !== undefined && query.slug === undefined) throw badRequest('Invalid request parameters', ['version: needs slug']);
    if (!this.canMatch(query)) return { object: 'list', ...toPage([], 1) };
    const limit = pageLimit(query);
    const [filters, order] = [this.filtersOf(query), query.order ?? 'desc'];
    const rows =
      query.q === undefined
        ? await this.logs.list(caller.projectId, filters, order, query.after, limit + 1)
        : await this.logs.search(caller.projectId, filters, query.q, order, query.after, limit + 1);
    return {
      object: 'list',
      ...toPage(
        rows.map(({ log, preview }) => ({
          ...toRequestLogDto(log, caller, this.traceUrlTemplate),
          preview: toLogPreview(preview, log.doNotRecord),
        })),
        limit,
      ),
    };
  }

  async get(caller: ProjectPrincipal, id: string): Promise<RequestLogDetailDto> {
    const log = isUuid(id) ? await this.logs.findById(caller.projectId, id) : null;
    if (!log) throw notFound('Request log not found');
    const request = await this.providerRequestOf(log);
    const messageIds =
      log.threadId && log.kind === 'assistant' ? await this.threadMessages.messageIdsOfLog(log.projectId, log.threadId, log.id) : [];
    return toRequestLogDetailDto(log, caller, request, messageIds, this.traceUrlTemplate);
  }

  /** One log of the project as stored (what an evaluation dataset copies from it), or null. */
  findStored(projectId: string, id: string): Promise<RequestLogEntity | null> {
    return isUuid(id) ? this.logs.findById(projectId, id) : Promise.resolve(null);
  }

  async summaryFor(projectId: string, id: string): Promise<RequestLogSummaryDto | null> {
    const log = await this.logs.findById(projectId, id);
    return log ? toRequestLogSummary(log, await this.providerRequestOf(log)) : null;
  }

  /** The provider request as sent: an assistant's is stored without its thread history, read back here. */
  private async providerRequestOf(log: RequestLogEntity): Promise<Record<string, unknown> | null> {
    if (!log.providerRequest || !log.threadRange) return log.providerRequest;
    const history = await this.threadMessages.messagesInRange(log.projectId, log.threadRange);
    if (history.length !== log.threadRange.count) {
      this.logger.warn(`request log ${log.id}: its thread range holds ${history.length} messages, ${log.threadRange.count} were sent`);
    }
    return restoreHistory(log.providerRequest, log.threadRange, history);
  }

  /**
   * False when a filter names what no log can hold: a thread id that is no UUID, a slug or
   * environment that is no slug. Such a filter matches nothing. (A filter holding U+0000 never
   * gets here: the validation pipe refuses it, docs/security.md "Bounded inputs".)
   */
  private canMatch(query: RequestLogQuery): boolean {
    if ([query.threadId, query.keyId].some((id) => id !== undefined && !isUuid(id))) return false;
    return ![query.slug, query.environment].some((filter) => filter !== undefined && !isSlugLike(filter));
  }

  private filtersOf(query: RequestLogQuery): LogFilters {
    const status =
      query.status === undefined
        ? undefined
        : /^\d+$/.test(query.status)
          ? { exact: Number(query.status) }
          : { success: query.status === 'success' };
    const separator = query.metadata?.indexOf(':') ?? -1;
    return {
      slug: query.slug,
      environment: query.environment,
      version: query.version !== undefined ? Number(query.version) : undefined,
      model: query.model,
      provider: query.provider,
      keyId: query.keyId,
      threadId: query.threadId,
      requestId: query.requestId,
      traceId: query.traceId?.toLowerCase(),
      status,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      metadata: query.metadata ? { key: query.metadata.slice(0, separator), value: query.metadata.slice(separator + 1) } : undefined,
    };
  }
}
