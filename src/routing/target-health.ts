import type { FallbackReason } from '../registry/content/routing.schema';

/**
 * The contract between the routing engine (which target to try next, src/routing) and the health
 * shared across replicas (docs/routing.md, "Health"). The engine asks synchronously, from what
 * this instance holds, so asking costs nothing on the hot path; `record` never delays a call.
 */

/** A routing target as health and stickiness name it: the same provider and model in one project are one target. */
export interface TargetRef {
  projectId: string;
  provider: string;
  model: string;
}

/**
 * How one attempt on a target ended; `reason` says why a failure may fall back (`other`: it did not).
 * `retryAfterMs`: what a rate-limited upstream asked to wait (Retry-After), honoured as the cooldown.
 */
export type AttemptOutcome =
  { ok: true; latencyMs: number } | { ok: false; reason: FallbackReason | 'other'; latencyMs: number; retryAfterMs?: number };

export abstract class TargetHealth {
  /**
   * False while the target cools down after repeated failures, on any replica, unless a probe is due:
   * then true for one caller, who must try it (ask only right before an attempt).
   */
  abstract available(target: TargetRef): boolean;

  /** True while the target's cooldown lasts (no probe due yet); no side effect, for planning. */
  abstract cooling(target: TargetRef): boolean;

  /** Smoothed latency of the target's recent successful attempts (least-latency routing); undefined when unknown. */
  abstract latencyMs(target: TargetRef): number | undefined;

  /** Counts an attempt's outcome toward the target's health; returns at once (any write happens in the background). */
  abstract record(target: TargetRef, outcome: AttemptOutcome): void;

  /** The target that last served this thread or conversation, if this instance knows it (stickiness, docs/routing.md). */
  abstract stickyTarget(projectId: string, threadId: string): Promise<Omit<TargetRef, 'projectId'> | undefined>;

  /** Remembers which target served a turn of the thread; returns at once. */
  abstract served(projectId: string, threadId: string, target: Omit<TargetRef, 'projectId'>): void;
}
