import { ProjectPrincipal } from '../auth/principal';
import { RequestLogObjectDto } from '../threads/dto/request-log-object.dto';
import { RequestLogDetailDto, RequestLogDto } from './dto/request-log.dto';
import { RequestLogSummaryDto } from './dto/request-log-summary.dto';
import { RequestLogEntity } from './request-log.entity';

/**
 * JSON text with object keys sorted, at every depth. The same log is encoded from memory (a new
 * thread's createLog, written with the log) and from jsonb (GET /v2/logs), which keeps keys in its
 * own order; sorting makes both the same string.
 */
function json(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
const text = (value: number | string | null) => (value === null ? null : String(value));

/**
 * The spec's request-log object (a thread's createLog, and the core of GET /v2/logs). Object-valued
 * fields are JSON-encoded strings; `providerKeyId` is the provider credential's id.
 */
export function toRequestLogObject(log: RequestLogEntity, caller: ProjectPrincipal): RequestLogObjectDto {
  return {
    id: log.id,
    url: log.url,
    metadata: json(log.metadata),
    promptId: log.promptId,
    threadId: log.threadId,
    projectId: log.projectId,
    requestIP: log.requestIp,
    variables: json(log.variables),
    parameters: json(log.parameters),
    promptSlug: log.promptSlug,
    environment: log.environment,
    providerKeyId: log.credentialId,
    projectSlug: caller.projectSlug,
    requestData: json(log.requestData),
    deploymentId: log.deploymentId,
    organizationId: caller.workspaceId,
    projectAPIKeyId: log.apiKeyId,
    organizationSlug: caller.workspaceSlug,
    deploymentVersion: text(log.deploymentVersion),
    promptHistoryHash: log.promptHistoryHash,
    providerOrganization: null,
    stream: log.stream,
    assistant: log.kind === 'assistant',
    doNotRecord: log.doNotRecord,
    startedAt: log.startedAt.toISOString(),
  };
}

/** A trace viewer's link: PARLEY_TRACE_URL_TEMPLATE with the log's trace id, or null without either. */
export function traceUrlOf(traceId: string | null, template: string | null): string | null {
  return traceId && template ? template.split('{traceId}').join(traceId) : null;
}

export function toRequestLogDto(log: RequestLogEntity, caller: ProjectPrincipal, traceUrlTemplate: string | null = null): RequestLogDto {
  return {
    ...toRequestLogObject(log, caller),
    kind: log.kind,
    version: log.version,
    provider: log.providerName,
    model: log.model,
    status: log.status,
    error: log.error,
    latencyMs: log.latencyMs,
    timeToFirstTokenMs: log.ttftMs,
    usage: {
      prompt_tokens: log.promptTokens,
      completion_tokens: log.completionTokens,
      total_tokens: log.totalTokens,
      uncached_input_tokens: log.uncachedInputTokens,
      cache_read_tokens: log.cacheReadTokens,
      cache_write_tokens: log.cacheWriteTokens,
      reasoning_tokens: log.reasoningTokens,
      output_tokens: log.outputTokens,
      partial: log.usagePartial,
    },
    costUsd: log.costUsd,
    priceRef: log.priceRef,
    // A log built in memory without it (an embedding call's) is no hit.
    cacheHit: log.cacheHit ?? false,
    traceId: log.traceId ?? null,
    traceUrl: traceUrlOf(log.traceId ?? null, traceUrlTemplate),
  };
}

/** GET /v2/logs/{id}: the log, what was sent and received (null when not recorded), the thread messages it added. */
export function toRequestLogDetailDto(
  log: RequestLogEntity,
  caller: ProjectPrincipal,
  providerRequest: Record<string, unknown> | null,
  threadMessageIds: string[],
  traceUrlTemplate: string | null = null,
): RequestLogDetailDto {
  return {
    ...toRequestLogDto(log, caller, traceUrlTemplate),
    request: providerRequest,
    response: log.providerResponse,
    threadMessageIds,
    attempts: log.attempts ?? null,
  };
}

/**
 * `requestLog` of a thread message: the provider request (`providerRequest`, rebuilt with its
 * thread history) and response, `{}` each when not recorded.
 */
export function toRequestLogSummary(log: RequestLogEntity, providerRequest: Record<string, unknown> | null): RequestLogSummaryDto {
  return {
    id: log.id,
    createdAt: log.startedAt.toISOString(),
    request: providerRequest ?? {},
    response: log.providerResponse ?? {},
  };
}
