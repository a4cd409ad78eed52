import type { ChatCompletion, CompletionUsage, ProviderRequest, TokenCounts } from '../providers';

/**
 * What the invocation core reports to telemetry (docs/observability.md), and the no-op it reports
 * to when the export is off. Nothing here loads the OpenTelemetry SDK: with the export off, a
 * request's trace is the NO_TRACE singleton (or, when the caller sent a traceparent, a
 * PassiveTrace that only knows its trace id, for the request log), every method a no-op, and the
 * core checks `enabled` once per call before it builds anything to report.
 */

/** One call as the GenAI spans and metrics describe it: the same for each of its attempts. */
export interface GenAiCallInfo {
  operation: 'chat' | 'embeddings';
  stream: boolean;
  /** The request log's id (x-parley-log-id). */
  logId: string;
  workspace: string;
  project: string;
  /** The deployment's environment; null for a direct provider call. */
  environment: string | null;
  /** The deployed prompt or assistant and the version that served; null for a direct provider call. */
  prompt: { name: string; version: number | null } | null;
  /** The version a split deployment's arm served (docs/experiments.md, "Splits"); null without a split. */
  arm: number | null;
  /** The thread (a /v1 conversation) the call continues or opens; null without one. */
  conversationId: string | null;
  /** No message content in any span, whatever the operator's setting (DESIGN.md §4.9). */
  doNotRecord: boolean;
}

/** One provider attempt of a call: its target. */
export interface GenAiAttemptInfo {
  /** The adapter: local, openai (OpenAI-compatible) or anthropic. */
  providerType: string;
  /** The provider credential's name (`local` for the built-in one). */
  providerName: string;
  /** The provider's base URL (its host and port are the span's server.address and server.port), if set. */
  baseUrl: string | undefined;
  request: ProviderRequest;
  /** 1 for the first target tried, 2 for the next (docs/routing.md). */
  number: number;
}

/** What an attempt answered; for a stream, read once it ended. */
export interface GenAiOutcome {
  completion?: ChatCompletion;
  /** The model that answered, when there is no completion to read it from (embeddings). */
  responseModel?: string;
  tokens?: TokenCounts;
  usage?: CompletionUsage;
}

export interface AttemptTrace {
  /** A stream's first chunk arrived (a routed target's first content event): the time to the first chunk. */
  firstChunk(): void;
  succeeded(outcome: GenAiOutcome): void;
  /** `errorType`: a low-cardinality name of the failure (error.type). */
  failed(errorType: string, outcome?: GenAiOutcome): void;
}

export interface CallTrace {
  /** A `gen_ai` client span (and the GenAI metrics) for one provider attempt. */
  attempt(info: GenAiAttemptInfo): AttemptTrace;
  /** A span around the call's durable write (its request log, and its thread turns): call the result when it ended. */
  durableWrite(withTurns: boolean): (failed?: boolean) => void;
}

/** One request's trace: what the edge (or a background job) hands the core with the request. */
export interface RequestTrace {
  /** False for the no-op and the passive trace: the core builds nothing to report. */
  readonly enabled: boolean;
  /** The trace's id (32 lowercase hex digits) for the request log; null when there is none. */
  readonly traceId: string | null;
  /** Once per invocation, when `enabled`. */
  call(info: GenAiCallInfo): CallTrace;
  /**
   * The `traceparent` that carries this trace into work done later for the request (a background
   * response), when it has spans of its own to be the parent; null otherwise.
   */
  carried(): string | null;
}

const noop = (): void => undefined;

export const NO_ATTEMPT: AttemptTrace = { firstChunk: noop, succeeded: noop, failed: noop };

export const NO_CALL: CallTrace = { attempt: () => NO_ATTEMPT, durableWrite: () => noop };

export const NO_TRACE: RequestTrace = { enabled: false, traceId: null, call: () => NO_CALL, carried: () => null };

/** The export is off, but the caller sent a valid traceparent: its trace id goes into the request log. */
export class PassiveTrace implements RequestTrace {
  readonly enabled = false;
  constructor(readonly traceId: string) {}
  call(): CallTrace {
    return NO_CALL;
  }
  carried(): null {
    return null;
  }
}

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/#traceparent-header): version, trace id,
 * parent id, flags. Version ff is invalid; version 00 has nothing after the flags; a later version
 * may add fields after a dash.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The trace id of a valid traceparent header, else null. */
export function traceIdOfTraceparent(header: unknown): string | null {
  if (typeof header !== 'string' || header.length > 512) return null;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return null;
  const [, version, traceId, parentId, , rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return null;
  return traceId;
}

/** Where the edge keeps a request's trace while the export is on (set by the HTTP middleware). */
export const REQUEST_TRACE = Symbol('parley.requestTrace');

/** A request's trace: the one the export's middleware made, else from its traceparent header alone. */
export function requestTraceOf(holder: { headers: Record<string, unknown>; [REQUEST_TRACE]?: RequestTrace }): RequestTrace {
  const made = holder[REQUEST_TRACE];
  if (made) return made;
  const header = holder.headers.traceparent;
  if (header === undefined) return NO_TRACE;
  const traceId = traceIdOfTraceparent(header);
  return traceId ? new PassiveTrace(traceId) : NO_TRACE;
}
