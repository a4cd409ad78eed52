import { Injectable } from '@nestjs/common';

import type { ProjectPrincipal } from '../auth/principal';
import {
  ChatCompletionChunk,
  completionTokensOf,
  promptTokensOf,
  ProviderCallOptions,
  ProviderError,
  ProviderResult,
  ProvidersService,
  ProviderStream,
  TokenCounts,
} from '../providers';
import { httpStatusFor } from '../providers';
import { planAttempts } from '../routing/attempt-planner';
import { fallbackReasonOf, FirstTokenTimeout } from '../routing/fallback';
import { TargetHealth, TargetRef } from '../routing/target-health';
import type { AttemptTrace } from '../telemetry/request-trace';
import type { PreparedInvocation } from './invocation.types';
import { AttemptRecord, credentialsOf, isContentChunk, Route } from './invocation-attempts';
import { attemptTraceOf, errorTypeOf } from './invocation-telemetry';

/** A routed stream read up to its first content event (or its end): what InvocationStreamRun goes on with. */
export interface OpenedStream {
  stream: ProviderStream;
  chunks: AsyncIterator<ChatCompletionChunk>;
  /** Role-only chunks of the serving target read before its first content event: sent once, before it. */
  head: ChatCompletionChunk[];
  /** The first content event, or the end of a stream that had none. */
  first: IteratorResult<ChatCompletionChunk>;
  /** The serving attempt's trace, ended by InvocationStreamRun with the stream. */
  attempt: AttemptTrace;
}

/**
 * The attempts of a routed call (docs/routing.md): its targets in the planner's order, each tried
 * in turn while the failure is one the block falls back on. A stream falls over only until its
 * first content event; after that a failure ends it with the surface's error event. While another
 * target remains, an attempt gets no provider retries of its own: falling over is faster than
 * retrying a failing target with backoff (docs/routing.md, "What falls back"); the last target
 * gets the configured retries.
 */
@Injectable()
export class RoutedCalls {
  constructor(
    private readonly providers: ProvidersService,
    private readonly health: TargetHealth,
  ) {}

  /**
   * The call's route, or null when routing does not apply: no routing block (or one target), or a
   * call that named its own model or provider (a /v1 `provider/model`, a `model` override), which
   * is served by exactly what it named.
   */
  async routeOf(caller: ProjectPrincipal, prepared: PreparedInvocation): Promise<Route | null> {
    const { target } = prepared.input;
    const deployment = target.deployment;
    const routing = deployment?.routing;
    if (!routing || routing.targets.length < 2) return null;
    if (target.provider.name !== deployment.provider.name || prepared.request.model !== deployment.model) return null;
    const continued = prepared.newThread ? null : prepared.threadId;
    const sticky = continued ? await this.health.stickyTarget(caller.projectId, continued) : undefined;
    const plan = planAttempts(routing, this.health, caller.projectId, sticky);
    const route = new Route(routing, plan, prepared, caller.projectId);
    // Every target cooling down: the plan is all of them, each tried in turn (none is skipped).
    route.tryAll = plan.every((t) => this.health.cooling({ projectId: caller.projectId, provider: t.provider.name, model: t.model }));
    if (prepared.threadId) {
      const threadId = prepared.threadId;
      route.onServed = () =>
        this.health.served(caller.projectId, threadId, { provider: route.current.provider.name, model: route.current.request.model });
    }
    return route;
  }

  /** A non-streamed routed call: the first target that answers; throws the last failure. */
  async complete(route: Route, doNotRecord: boolean, signal?: AbortSignal): Promise<ProviderResult> {
    for (;;) {
      if (!this.claim(route)) continue;
      const target = route.current;
      const attempt = attemptTraceOf(route.prepared, target.provider, target.request, route.attempts);
      try {
        const result = await this.providers.complete(target.request, credentialsOf(target.provider), this.optionsOf(route, signal));
        this.health.record(this.refOf(route), { ok: true, latencyMs: Date.now() - route.attemptStartedAt });
        attempt.succeeded(result);
        return result;
      } catch (err) {
        attempt.failed(errorTypeOf(err));
        if (!this.fellBack(route, err, doNotRecord)) throw err;
      }
    }
  }

  /**
   * A routed stream, read until its first content event: a target that fails, stalls past
   * firstTokenTimeoutMs (while another remains) or sends malformed data before it is abandoned
   * (its upstream request aborted) and the next one opened. Throws the last failure.
   */
  async openStream(route: Route, doNotRecord: boolean, signal?: AbortSignal): Promise<OpenedStream> {
    for (;;) {
      if (!this.claim(route)) continue;
      const target = route.current;
      const attempt = attemptTraceOf(route.prepared, target.provider, target.request, route.attempts);
      // Per attempt, so an abandoned target's request can be aborted without the caller's.
      const abort = new AbortController();
      const forward = () => abort.abort();
      if (signal?.aborted) abort.abort();
      else signal?.addEventListener('abort', forward, { once: true });
      let stream: ProviderStream | undefined;
      try {
        stream = this.providers.stream(target.request, credentialsOf(target.provider), this.optionsOf(route, abort.signal));
        const chunks = stream[Symbol.asyncIterator]();
        const head: ChatCompletionChunk[] = [];
        const limitMs = this.firstTokenLimitOf(route);
        const deadline = limitMs === undefined ? undefined : route.attemptStartedAt + limitMs;
        for (;;) {
          const next = deadline === undefined ? await chunks.next() : await beforeDeadline(chunks.next(), deadline, target, limitMs!);
          if (next.done || isContentChunk(next.value)) {
            route.ttftMs = Date.now() - route.attemptStartedAt;
            this.health.record(this.refOf(route), { ok: true, latencyMs: route.ttftMs });
            attempt.firstChunk();
            return { stream, chunks, head, first: next, attempt };
          }
          head.push(next.value);
        }
      } catch (err) {
        signal?.removeEventListener('abort', forward);
        // Abandoned: whatever the upstream still sends is not read.
        abort.abort();
        attempt.failed(errorTypeOf(err), { tokens: stream?.tokens });
        if (!this.fellBack(route, err, doNotRecord, stream?.tokens)) throw err;
      }
    }
  }

  /** A served stream failed after its first content event: counted against the target's health. */
  failedAfterContent(route: Route, err: unknown): void {
    const reason = fallbackReasonOf(err);
    route.lastReason = reason ?? undefined;
    this.health.record(this.refOf(route), { ok: false, reason: reason ?? 'other', latencyMs: Date.now() - route.attemptStartedAt });
  }

  /**
   * Counts a failed attempt against its target; moves the route on and returns true when the
   * failure falls back (its reason is in fallbackOn) and another target remains.
   */
  private fellBack(route: Route, err: unknown, doNotRecord: boolean, tokens?: TokenCounts): boolean {
    const reason = fallbackReasonOf(err);
    const latencyMs = Date.now() - route.attemptStartedAt;
    // A rate limit's Retry-After is the cooldown the upstream asked for (docs/routing.md, "Health").
    const retryAfterSeconds = reason === 'rate_limit' && err instanceof ProviderError ? err.retryAfterSeconds : undefined;
    const retryAfter = retryAfterSeconds !== undefined ? { retryAfterMs: retryAfterSeconds * 1000 } : {};
    this.health.record(this.refOf(route), { ok: false, reason: reason ?? 'other', latencyMs, ...retryAfter });
    if (!route.hasNext || reason === null || !route.routing.fallbackOn.includes(reason)) {
      route.lastReason = reason ?? undefined;
      return false;
    }
    const target = route.current;
    const record: AttemptRecord = {
      provider: target.provider.name,
      model: target.request.model,
      status: err instanceof ProviderError ? httpStatusFor(err) : 502,
      latencyMs,
      error: err instanceof ProviderError ? (doNotRecord ? err.recordableMessage : err.message) : 'The provider call failed',
      reason,
      ...(tokens ? { inputTokens: promptTokensOf(tokens), outputTokens: completionTokensOf(tokens) } : {}),
    };
    route.next({ target, record, ...(tokens ? { tokens } : {}) });
    return true;
  }

  private optionsOf(route: Route, signal?: AbortSignal): ProviderCallOptions {
    // No provider retries while another target remains (see the class comment).
    return route.hasNext ? { signal, maxRetries: 0 } : { signal };
  }

  /** The first-token limit of the current attempt: only while another target remains and the block falls back on it. */
  private firstTokenLimitOf(route: Route): number | undefined {
    const { firstTokenTimeoutMs, fallbackOn } = route.routing;
    if (firstTokenTimeoutMs === undefined || !route.hasNext || !fallbackOn.includes('first_token_timeout')) return undefined;
    return firstTokenTimeoutMs;
  }

  /**
   * Right before an attempt: a target whose cooldown ended is tried by one caller at a time (its
   * probe, taken here, not when planning, so a call an earlier target serves never holds it). When
   * another call holds the probe and another target remains, this one is skipped (not an attempt).
   */
  private claim(route: Route): boolean {
    if (this.health.available(this.refOf(route)) || route.tryAll || !route.hasNext) return true;
    route.skip();
    return false;
  }

  private refOf(route: Route): TargetRef {
    return { projectId: route.projectId, provider: route.current.provider.name, model: route.current.request.model };
  }
}

/** `pending`, or a FirstTokenTimeout once `deadline` (epoch ms) passed; the attempt is then aborted by the caller. */
function beforeDeadline<T>(pending: Promise<T>, deadline: number, target: { provider: { type: string } }, limitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new FirstTokenTimeout(target.provider.type as ProviderError['provider'], limitMs)),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
}
