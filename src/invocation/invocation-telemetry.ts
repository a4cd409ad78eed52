import type { ProjectPrincipal } from '../auth/principal';
import { ProviderError, type ProviderRequest } from '../providers';
import type { ResolvedProvider } from '../registry/resolved-deployment';
import { fallbackReasonOf } from '../routing/fallback';
import { type AttemptTrace, type CallTrace, type GenAiOutcome, NO_ATTEMPT } from '../telemetry/request-trace';
import type { PreparedInvocation } from './invocation.types';

/**
 * What the invocation core tells telemetry (docs/observability.md): the call once, each provider
 * attempt, the durable write. With the export off the request's trace is not `enabled`,
 * `prepared.trace` stays undefined, and every function here returns before it builds anything.
 */

/** The call's trace, made once per call when its request's trace is enabled; undefined otherwise. */
export function callTraceOf(
  caller: ProjectPrincipal,
  prepared: PreparedInvocation,
  operation: 'chat' | 'embeddings',
): CallTrace | undefined {
  const request = prepared.input.log.telemetry;
  if (!request?.enabled) return undefined;
  const { target, stream, doNotRecord } = prepared.input;
  const deployment = target.deployment;
  return request.call({
    operation,
    stream,
    logId: prepared.logId,
    workspace: caller.workspaceSlug,
    project: caller.projectSlug,
    environment: deployment ? target.environment : null,
    prompt: deployment ? { name: deployment.promptSlug, version: deployment.version } : null,
    // The version a split's arm served (docs/experiments.md, "Splits"); a pinned version is no arm.
    arm: deployment?.split && !deployment.pinned ? deployment.version : null,
    conversationId: prepared.threadId,
    doNotRecord,
  });
}

/** One provider attempt's trace (number 1 for the first target tried); the no-op without a call trace. */
export function attemptTraceOf(
  prepared: PreparedInvocation,
  provider: ResolvedProvider,
  request: ProviderRequest,
  number: number,
): AttemptTrace {
  const call = prepared.trace;
  if (!call) return NO_ATTEMPT;
  return call.attempt({ providerType: provider.type, providerName: provider.name, baseUrl: provider.baseUrl, request, number });
}

/**
 * `error.type` of a failed attempt, low in cardinality: why it may fall back (docs/routing.md, "What
 * falls back"), else the provider error's kind (bad_request, aborted), else the error's class.
 */
export function errorTypeOf(err: unknown): string {
  const reason = fallbackReasonOf(err);
  if (reason) return reason;
  if (err instanceof ProviderError) return err.kind;
  return err instanceof Error ? err.name : '_OTHER';
}

/** A non-streamed provider call, its attempt's span ended with its outcome; `call` itself when not traced. */
export function tracedCall<T extends GenAiOutcome>(attempt: AttemptTrace, call: Promise<T>): Promise<T> {
  if (attempt === NO_ATTEMPT) return call;
  return call.then(
    (result) => {
      attempt.succeeded(result);
      return result;
    },
    (err: unknown) => {
      attempt.failed(errorTypeOf(err));
      throw err;
    },
  );
}

/**
 * A durable write with its span: `started` is what CallTrace.durableWrite returned before the write
 * began (undefined when not traced, and then `write` is returned as it is).
 */
export function tracedWrite<T>(started: ((failed?: boolean) => void) | undefined, write: Promise<T>): Promise<T> {
  if (!started) return write;
  return write.then(
    (value) => {
      started();
      return value;
    },
    (err: unknown) => {
      started(true);
      throw err;
    },
  );
}
