import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { ApiException } from '../common/errors';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { LimitsService } from '../limits/limits.service';
import { ThreadTurn } from '../messages/message-store';
import { MetricsService } from '../metrics/metrics.service';
import {
  type ChatCompletion,
  completionTokensOf,
  type CompletionUsage,
  promptTokensOf,
  type TokenCounts,
  tokensFromOpenAI,
} from '../providers';
import { RequestLogEntity } from '../request-logs/request-log.entity';
import { toRequestLogObject } from '../request-logs/request-logs.mapper';
import { RequestLogsService } from '../request-logs/request-logs.service';
import { elideHistory } from '../request-logs/thread-range';
import { CallCost, PricesService } from '../usage/pricing/prices.service';
import { PreparedInvocation } from './invocation.types';
import type { Route } from './invocation-attempts';
import { tracedWrite } from './invocation-telemetry';
import { threadNotFound } from './invoke-errors';
import { replyMessage } from './invoke-request';
import { LiveGradeSampler } from './live-grade-sampler';
import { attemptsOf, billedTokensOf, routedCostOf } from './routed-log';
import { TurnRecord, TurnWriter } from './turn-writer';

export interface InvokeOutcome {
  /** The HTTP status Parley answered with. */
  status: number;
  error: string | null;
  completion?: ChatCompletion;
  providerRequest?: object;
  providerResponse?: object;
  usage?: CompletionUsage;
  /** The usage by kind, as the provider reported it (preferred over `usage`, which has no cache writes). */
  tokens?: TokenCounts;
  /** The call ended before the provider's final usage (a stream cut): `tokens` is what was known. */
  usagePartial?: boolean;
  startedAt: Date;
  ttftMs: number | null;
  /** Answered from the exact response cache (docs/routing.md, "Response cache"): no provider call, so cost 0 and no provider metrics. */
  cacheHit?: boolean;
  /**
   * A routed call's attempts (docs/routing.md): the log names its current target (the one that
   * served, or failed last) and records every attempt; absent without routing.
   */
  route?: Route;
}

/**
 * Writes what an invoke leaves behind: its request log, and for an assistant that succeeded the
 * new thread (if any) and the two turns, all in one transaction (group-committed with concurrent
 * calls', turn-writer.ts). A failed call writes only its log, so the thread stays as it was. A
 * success, once stored, is offered to the live graders' sampling (live-grade-sampler.ts).
 */
@Injectable()
export class InvocationRecorder {
  private readonly logger = new Logger('Invocation');

  constructor(
    private readonly requestLogs: RequestLogsService,
    private readonly turns: TurnWriter,
    private readonly metrics: MetricsService,
    private readonly idempotency: IdempotencyService,
    private readonly prices: PricesService,
    private readonly limits: LimitsService,
    private readonly liveGrades: LiveGradeSampler,
  ) {}

  /**
   * Throws the invoke's 404 `{error: "Thread not found"}` when the thread was deleted while the
   * provider worked: nothing is appended, and the log records the call with that status.
   */
  async recordSuccess(caller: ProjectPrincipal, prepared: PreparedInvocation, outcome: InvokeOutcome): Promise<void> {
    const log = this.buildLog(caller, prepared, outcome, prepared.threadId, await this.costOf(caller, prepared, outcome));
    const completion = outcome.completion;
    const also = completion ? this.alsoOf(caller, prepared, completion) : null;
    const rows = completion && prepared.input.recordRows ? prepared.input.recordRows(completion) : null;
    if (!completion || (!prepared.threadId && !also && !rows)) {
      this.observe(log, caller);
      await tracedWrite(prepared.trace?.durableWrite(false), this.requestLogs.record(log));
      this.liveGrades.consider(caller, prepared.input.target, log);
      return;
    }
    try {
      const written = prepared.trace?.durableWrite(true);
      await tracedWrite(
        written,
        this.turns.write({
          log,
          thread: prepared.threadId ? this.threadOf(caller, prepared, prepared.threadId, log, completion) : null,
          also,
          rows,
        }),
      );
    } catch (err) {
      // The thread was deleted after the history was read: nothing was written for this call.
      if (!(err instanceof ApiException && err.getStatus() === 404)) throw err;
      const gone = threadNotFound();
      await this.recordFailure(caller, prepared, { ...outcome, status: gone.getStatus(), error: 'Thread not found' });
      throw gone;
    }
    this.observe(log, caller);
    this.liveGrades.consider(caller, prepared.input.target, log);
  }

  /** The thread a successful call appends to: opened by it or continued, and its two turns. */
  private threadOf(
    caller: ProjectPrincipal,
    prepared: PreparedInvocation,
    threadId: string,
    log: RequestLogEntity,
    completion: ChatCompletion,
  ): TurnRecord['thread'] {
    const turns: ThreadTurn[] = [];
    if (prepared.input.messages.length > 0) {
      turns.push({ content: prepared.input.messages as ThreadTurn['content'], requestLogId: log.id });
    }
    const reply = completion.choices[0]?.message;
    if (reply) turns.push({ content: [replyMessage(reply) as ThreadTurn['content'][number]], requestLogId: log.id });
    return { id: threadId, createLog: prepared.newThread ? { ...toRequestLogObject(log, caller) } : null, turns };
  }

  /**
   * The call's writes beside its log and turns, in their transaction: its Idempotency-Key outcome
   * (so a retry after a crash replays the turns, never appends them twice) and the transport's own.
   */
  private alsoOf(caller: ProjectPrincipal, prepared: PreparedInvocation, completion: ChatCompletion): TurnRecord['also'] {
    const recordWith = prepared.input.recordWith;
    if (!prepared.input.idempotencyKey && !recordWith) return null;
    return async (manager) => {
      await this.storeOutcome(caller, prepared, completion, manager);
      await recordWith?.(manager, completion);
    };
  }

  /** The outcome an Idempotency-Key replays (docs/security.md, "Idempotency keys"). */
  private async storeOutcome(
    caller: ProjectPrincipal,
    prepared: PreparedInvocation,
    completion: ChatCompletion,
    manager: EntityManager,
  ): Promise<void> {
    const key = prepared.input.idempotencyKey;
    if (!key) return;
    const objectId = prepared.input.objectId;
    await this.idempotency.complete(
      caller.projectId,
      key,
      { kind: 'invocation', threadId: prepared.threadId, completion, ...(objectId ? { objectId } : {}) },
      manager,
    );
  }

  /** Never throws: failing to log a failure must not hide the failure from the client. */
  async recordFailure(caller: ProjectPrincipal, prepared: PreparedInvocation, outcome: InvokeOutcome): Promise<void> {
    try {
      const log = this.buildLog(
        caller,
        prepared,
        outcome,
        prepared.newThread ? null : prepared.threadId,
        await this.costOf(caller, prepared, outcome),
      );
      this.observe(log, caller);
      await tracedWrite(prepared.trace?.durableWrite(false), this.requestLogs.record(log)).catch((err) =>
        this.logger.error(`could not record request log ${log.id}: ${(err as Error).message}`),
      );
    } catch (err) {
      this.logger.error(`could not record a failed call: ${(err as Error).message}`);
    }
  }

  /** The tokens by kind: as the provider reported them, else read from OpenAI's usage shape. */
  private tokensOf(outcome: InvokeOutcome): TokenCounts | undefined {
    if (outcome.tokens) return outcome.tokens;
    const usage = outcome.usage ?? outcome.completion?.usage;
    return usage ? tokensFromOpenAI(usage) : undefined;
  }

  private costOf(caller: ProjectPrincipal, prepared: PreparedInvocation, outcome: InvokeOutcome): Promise<CallCost> {
    if (outcome.cacheHit) return Promise.resolve({ costUsd: '0', priceRef: null });
    if (outcome.route) return routedCostOf(this.prices, caller.projectId, outcome.route, this.tokensOf(outcome));
    return this.prices.costOf(caller.projectId, prepared.input.target.provider, prepared.request.model, this.tokensOf(outcome));
  }

  /**
   * Once per log written: its cost charged to the budgets (docs/usage.md, "Budgets"), and provider
   * metrics (GET /metrics) from its fields; never throws.
   */
  private observe(log: RequestLogEntity, caller: ProjectPrincipal): void {
    try {
      this.limits.charge(caller, log.costUsd, log.status < 400);
    } catch (err) {
      this.logger.warn(`could not charge a call's cost: ${(err as Error).message}`);
    }
    // A cache hit called no provider: its latency and tokens are not the provider's.
    if (log.cacheHit) return;
    try {
      this.metrics.observeProvider({
        project: `${caller.workspaceSlug}/${caller.projectSlug}`,
        provider: log.providerName,
        model: log.model,
        status: log.status,
        durationSeconds: log.latencyMs / 1000,
        promptTokens: log.promptTokens,
        completionTokens: log.completionTokens,
        tokensByKind: {
          uncached_input: log.uncachedInputTokens,
          cache_read: log.cacheReadTokens,
          cache_write: log.cacheWriteTokens,
          reasoning: log.reasoningTokens,
          output: log.outputTokens,
        },
        costUsd: log.costUsd === null ? null : Number(log.costUsd),
        timeToFirstTokenSeconds: log.ttftMs === null || log.ttftMs === undefined ? null : log.ttftMs / 1000,
      });
    } catch (err) {
      this.logger.warn(`could not record provider metrics: ${(err as Error).message}`);
    }
  }

  private buildLog(
    caller: ProjectPrincipal,
    prepared: PreparedInvocation,
    outcome: InvokeOutcome,
    threadId: string | null,
    cost: CallCost,
  ): RequestLogEntity {
    const { target, doNotRecord, log: request } = prepared.input;
    const deployment = target.deployment;
    const route = outcome.route;
    const serving = this.tokensOf(outcome);
    // Every billed attempt counts: the log's tokens (and so the usage rollups fed from it) and cost add the failed ones'.
    const tokens = route ? billedTokensOf(route, serving) : serving;
    const provider = route ? route.current.provider : target.provider;
    const sent = doNotRecord ? null : ((outcome.providerRequest ?? null) as Record<string, unknown> | null);
    // The thread history stays in the thread: the log keeps where it is (docs/decisions.md).
    const { request: providerRequest, range: threadRange } =
      sent && prepared.history ? elideHistory(sent, prepared.history) : { request: sent, range: null };
    return Object.assign(new RequestLogEntity(), {
      projectId: caller.projectId,
      id: prepared.logId,
      requestId: request.requestId ?? null,
      // The caller's trace (its traceparent), or Parley's own while the export is on (docs/observability.md).
      traceId: request.telemetry?.traceId ?? null,
      apiKeyId: caller.keyId,
      threadId,
      promptId: deployment?.promptId ?? null,
      promptSlug: target.slug,
      kind: target.kind,
      environment: target.environment,
      deploymentId: deployment?.deploymentId ?? null,
      deploymentVersion: deployment?.deploymentVersion ?? null,
      version: deployment?.version ?? null,
      promptHistoryHash: deployment?.contentHash ?? null,
      providerName: provider.name,
      providerType: provider.type,
      credentialId: provider.credentialId,
      model: route ? route.current.request.model : prepared.request.model,
      // Redacted at the edge: a key a client put in the query string is never stored (docs/security.md "Keys in URLs").
      url: request.url,
      requestIp: request.ip ?? null,
      stream: prepared.input.stream,
      doNotRecord,
      metadata: prepared.input.metadata,
      // doNotRecord: no variables, messages, template or reply text in the log (DESIGN.md §4.9).
      variables: doNotRecord ? null : prepared.variables,
      parameters: route ? route.current.parameters : prepared.parameters,
      requestData: doNotRecord ? null : request.requestData,
      providerRequest,
      threadRange,
      providerResponse: doNotRecord ? null : ((outcome.providerResponse ?? null) as Record<string, unknown> | null),
      status: outcome.status,
      error: outcome.error,
      latencyMs: Date.now() - outcome.startedAt.getTime(),
      ttftMs: outcome.ttftMs,
      promptTokens: tokens ? promptTokensOf(tokens) : null,
      completionTokens: tokens ? completionTokensOf(tokens) : null,
      totalTokens: tokens ? promptTokensOf(tokens) + completionTokensOf(tokens) : null,
      uncachedInputTokens: tokens?.input ?? null,
      cacheReadTokens: tokens?.cacheRead ?? null,
      cacheWriteTokens: tokens?.cacheWrite ?? null,
      reasoningTokens: tokens?.reasoning ?? null,
      outputTokens: tokens?.output ?? null,
      usagePartial: outcome.usagePartial ?? false,
      cacheHit: outcome.cacheHit ?? false,
      attempts: route ? attemptsOf(route, outcome, serving, cost) : null,
      costUsd: cost.costUsd,
      priceRef: cost.priceRef,
      startedAt: outcome.startedAt,
    });
  }
}
