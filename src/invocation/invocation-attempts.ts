import type { ChatCompletionChunk, ProviderCredentials, ProviderRequest, TokenCounts } from '../providers';
import type { FallbackReason } from '../registry/content/routing.schema';
import type { ResolvedProvider, ResolvedRouting, ResolvedRoutingTarget } from '../registry/resolved-deployment';
import type { AttemptRecord } from '../request-logs/request-log-attempt';
import type { PreparedInvocation } from './invocation.types';

export type { AttemptRecord };

/**
 * What a routed call (docs/routing.md) carries from one attempt to the next, and what its request
 * log records of each. Only calls whose deployment has a routing block make one: a call without
 * routing allocates none of this.
 */

/** A target an attempt calls: its provider (with credentials), the request with its model and parameters. */
export interface AttemptTarget {
  provider: ResolvedProvider;
  request: ProviderRequest;
  /** The log's `parameters` when this target serves. */
  parameters: Record<string, unknown>;
  /** The routing target's index in the version's list (for health and stickiness). */
  index: number;
}

/** An attempt that failed and was fallen back from, with the usage its provider reported, if any. */
export interface FailedAttempt {
  target: AttemptTarget;
  record: AttemptRecord;
  tokens?: TokenCounts;
}

/**
 * The state of one routed call: the planned targets, the attempts that failed, the one running
 * (or that served, or failed last). The recorder reads it to write the log's provider, model,
 * cost and attempts.
 */
export class Route {
  readonly failed: FailedAttempt[] = [];
  private currentTarget: AttemptTarget | undefined;
  /** Index into `plan` of the current attempt. */
  private at = 0;
  /** Epoch ms the current attempt started. */
  attemptStartedAt = Date.now();
  /** A stream's serving attempt: from its start to its first content event. */
  ttftMs: number | undefined;
  /** Why the current attempt failed, when it failed last and its failure was one that falls back. */
  lastReason: FallbackReason | undefined;
  /** Called once the served call's log and thread turns are stored (stickiness, docs/routing.md). */
  onServed: (() => void) | undefined;
  /** Every target was cooling down when planned: each is tried in turn, none skipped for a probe held elsewhere. */
  tryAll = false;

  constructor(
    readonly routing: ResolvedRouting,
    /** The targets in the order they are tried; each one's request is made when its turn comes. */
    readonly plan: readonly ResolvedRoutingTarget[],
    /** The call (its trace names each attempt's span: invocation-telemetry.ts). */
    readonly prepared: PreparedInvocation,
    readonly projectId: string,
  ) {}

  get current(): AttemptTarget {
    return (this.currentTarget ??= attemptTargetOf(this.prepared, this.plan[this.at]));
  }

  /** Whether another target remains after the current one. */
  get hasNext(): boolean {
    return this.at < this.plan.length - 1;
  }

  /** How many targets were tried, the current one included. */
  get attempts(): number {
    return this.failed.length + 1;
  }

  /** Moves past the current target without trying it (its probe is out with another call). */
  skip(): void {
    this.at += 1;
    this.currentTarget = undefined;
    this.attemptStartedAt = Date.now();
  }

  /** Moves on from a failed current attempt to the next target. */
  next(failure: FailedAttempt): void {
    this.failed.push(failure);
    this.at += 1;
    this.currentTarget = undefined;
    this.attemptStartedAt = Date.now();
  }
}

/** The credentials of a provider resolved by the registry. */
export function credentialsOf(provider: ResolvedProvider): ProviderCredentials {
  return { type: provider.type, baseUrl: provider.baseUrl, apiKey: provider.apiKey };
}

/**
 * The request and parameters of one routing target: the prepared request (template, history,
 * messages, the caller's overrides) with the target's model, and the version's parameters
 * overridden by the target's, except those the caller set on the request, which win as they do
 * over the version's own (docs/routing.md, "Strategies").
 */
export function attemptTargetOf(prepared: PreparedInvocation, target: ResolvedRoutingTarget): AttemptTarget {
  const own = Object.keys(target.parameters).length === 0;
  if (target.index === 0 && own) {
    return { provider: target.provider, request: prepared.request, parameters: prepared.parameters, index: 0 };
  }
  const overrides = prepared.input.overrides as Record<string, unknown>;
  const request = { ...prepared.request, model: target.model } as ProviderRequest & Record<string, unknown>;
  const parameters: Record<string, unknown> = { ...prepared.parameters };
  for (const [key, value] of Object.entries(target.parameters as Record<string, unknown>)) {
    if (value === undefined || overrides[key] !== undefined) continue;
    parameters[key] = value;
    // A tool choice needs tools, except a named function (invoke-request.ts).
    if (key === 'tool_choice' && !request.tools && typeof value !== 'object') continue;
    request[key] = value;
  }
  return { provider: target.provider, request, parameters, index: target.index };
}

/**
 * True for a chunk that shows the caller something (docs/routing.md, "Streams"): text, a tool
 * call, a refusal, reasoning, or the end of a choice. A role-only chunk is not: until content
 * came, a stream may still be abandoned for the next target.
 */
export function isContentChunk(chunk: ChatCompletionChunk): boolean {
  for (const choice of chunk.choices ?? []) {
    if (choice.finish_reason) return true;
    const delta = choice.delta as (ChatCompletionChunk.Choice.Delta & { reasoning_content?: string }) | undefined;
    if (!delta) continue;
    if (delta.content || delta.refusal || delta.reasoning_content) return true;
    if (delta.tool_calls && delta.tool_calls.length > 0) return true;
  }
  return false;
}
