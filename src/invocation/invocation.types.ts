/**
 * The transport-independent invocation core's contract (docs/decisions.md, "Invocation core").
 * A surface (the spec's invoke endpoints, `/v1/chat/completions`, `/v1/responses`) parses its own
 * request, resolves a target, builds an InvocationInput, and renders the InvocationResult the
 * core returns. Nothing here knows HTTP.
 */
import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

import type { ChatMessage } from '../common/chat';
import type { ApiException } from '../common/errors';
import type { WireLogFields } from '../common/http/wire-request';
import type { ChatCompletion, ChatCompletionChunk, ProviderRequest } from '../providers';
import type { PromptKind, ResolvedDeployment, ResolvedProvider } from '../registry/resolved-deployment';
import type { SentHistory } from '../request-logs/thread-range';
import type { CallTrace } from '../telemetry/request-trace';
import type { CompiledTemplate } from '../templates';
import type { Route } from './invocation-attempts';

/** What a caller names: a deployed prompt or assistant, or a model of a provider called directly. */
export type InvokeTarget =
  { type: 'deployment'; slug: string; environment: string; version?: number } | { type: 'provider'; provider: string; model: string };

/** What the surface asks a target for: a chat answer (every surface but one), or embeddings (`/v1/embeddings`). */
export type InvokePurpose = 'chat' | 'embedding';

/** A target resolved against the caller's project. */
export interface ResolvedTarget {
  /** null for a direct provider call (no template, no stored settings). */
  deployment: ResolvedDeployment | null;
  provider: ResolvedProvider;
  /** The model called unless the request overrides it: the deployment's, or the one named directly. */
  model: string;
  /** Logged as the request log's `kind`; a direct call is a `prompt`, a `/v1/embeddings` call an `embedding`. */
  kind: PromptKind;
  /** The request log's `promptSlug`: the deployment's slug, or `<provider>/<model>`. */
  slug: string;
  /** The request log's `environment`: the deployment's, or '' for a direct call. */
  environment: string;
}

/** The request values that override a deployment's stored settings (all of ProviderRequest but the messages). */
export type RequestOverrides = Partial<Omit<ProviderRequest, 'messages' | 'metadata'>>;

/**
 * Which thread the call continues: `{continue: id}` (its history is sent, the turns appended),
 * `{create: true}` (a new thread, created with the turns once the provider succeeded), or none.
 */
export type ThreadChoice = { continue: string } | { create: true } | null;

export interface InvocationInput {
  target: ResolvedTarget;
  /** The request's messages: sent after the template and the thread history; appended to the thread. */
  messages: ChatMessage[];
  /** Replaces the deployment's stored template (the spec body's `template`). */
  template?: CompiledTemplate<ChatMessage>;
  /** Template variables; the deployment's declared defaults fill the rest. */
  variables: Record<string, string>;
  overrides: RequestOverrides;
  thread: ThreadChoice;
  stream: boolean;
  doNotRecord: boolean;
  metadata: Record<string, string | number>;
  /**
   * `x-parley-cache-ttl` (docs/routing.md, "Response cache"): the exact response cache's TTL for
   * this call, in place of the version's; 0 bypasses the version's cache. Never applies with doNotRecord.
   */
  cacheTtlSeconds?: number;
  /**
   * Refuse (400 with `param`) a request field the provider's adapter cannot honour instead of
   * letting the adapter drop or approximate it: the `/v1` surface asks for this.
   */
  strictParams?: boolean;
  /**
   * The request's Idempotency-Key (docs/security.md): a retry with the same key and request
   * replays the stored outcome instead of calling the provider and appending again.
   */
  idempotencyKey?: string;
  /**
   * The id of the object the surface answers with (a Response's `resp_...`): stored with the
   * Idempotency-Key's outcome, so a replay answers with the same id (`replayedObjectId`).
   */
  objectId?: string;
  /**
   * Written in the same transaction as a successful call's log and thread turns (the surface's own
   * record of the outcome, e.g. a stored response's final status); when it throws, nothing of the
   * success is written and the call fails with that error.
   */
  recordWith?: (manager: EntityManager, completion: ChatCompletion) => Promise<void>;
  /**
   * Rows of the surface's own written with a successful call's log and turns, in their
   * transaction, as plain INSERTs batched with concurrent calls' rows of the same table (a stored
   * Response): cheaper than `recordWith`, which runs statements of its own for each call.
   */
  recordRows?: (completion: ChatCompletion) => RowsToInsert;
  /**
   * What the request log records about the request itself: the body as sent, and the edge's URL,
   * client address and X-Request-Id (GET /v2/logs?requestId=), from the surface's WireRequest.
   */
  log: { requestData: Record<string, unknown> } & WireLogFields;
}

/** An input after preparation: what goes to the provider, and the thread it belongs to. */
export interface PreparedInvocation {
  input: InvocationInput;
  /** The id the call's request log gets, known before the call so the answer's x-parley-log-id can carry it. */
  logId: string;
  /** The thread continued, or the id the new thread gets once the call succeeds; null without a thread. */
  threadId: string | null;
  newThread: boolean;
  /** Declared defaults with the request's variables applied. */
  variables: Record<string, string>;
  /** Stored settings with the request's overrides applied: the log's `parameters`. */
  parameters: Record<string, unknown>;
  request: ProviderRequest;
  /** The thread history sent, by turn: the request log refers to it instead of copying it (docs/decisions.md). */
  history?: SentHistory;
  /** Refused while preparing (a template too large to render): `run` logs the call and throws this, the provider is not called. */
  refusal?: ApiException;
  /** Set by `run` for a routed call (docs/routing.md): its targets and attempts; `current` is the one that served or failed last. */
  route?: Route;
  /** Set by `run` while the OpenTelemetry export is on (invocation-telemetry.ts): the call's spans and metrics. */
  trace?: CallTrace;
}

export interface CompletionResult {
  type: 'completion';
  threadId: string | null;
  /** Set when an Idempotency-Key replayed a stored outcome: the `objectId` stored with it, if any. */
  replayed?: { objectId?: string };
  /** Headers the answer should carry (x-ratelimit-* when the caller has a rate limit). */
  headers?: Record<string, string>;
  completion: ChatCompletion;
}

/**
 * A streamed reply whose first chunk has arrived (a failure before it was thrown by `invoke`).
 * Iterate `chunks` once; a provider failure while iterating is recorded and thrown as the
 * ApiException to report. When iteration ended, `finish()` records the log and the thread turns
 * and returns the assembled completion; it throws (404 thread gone, 503 database unavailable)
 * when the reply could not be stored.
 */
export interface StreamResult {
  type: 'stream';
  threadId: string | null;
  /** As on CompletionResult. */
  replayed?: { objectId?: string };
  /** Headers the answer should carry (x-ratelimit-* when the caller has a rate limit). */
  headers?: Record<string, string>;
  chunks: AsyncIterable<ChatCompletionChunk>;
  finish(): Promise<ChatCompletion>;
}

export type InvocationResult = CompletionResult | StreamResult;

/** Rows of one table, for InvocationInput.recordRows. */
export interface RowsToInsert {
  target: EntityTarget<ObjectLiteral>;
  rows: ObjectLiteral[];
}
