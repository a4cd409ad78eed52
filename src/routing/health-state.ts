import type { AttemptOutcome, TargetRef } from './target-health';

/**
 * The health of routing targets as one instance holds it (docs/routing.md, "Health"): a pure state
 * machine on an injected clock. SharedTargetHealth feeds it this instance's outcomes and the other
 * instances' changes, and writes what it returns.
 */

/** Fallback-worthy failures in a row that trip a target. */
export const FAILURES_TO_TRIP = 3;
/** The longest cooldown, as a multiple of the first (5 s → 5 min by default). */
export const MAX_COOLDOWN_FACTOR = 60;
/** A probe whose outcome never came (the call was not made, or was cut) frees the next one after this. */
export const PROBE_LEASE_MS = 10_000;
/** Weight of the newest latency in the moving average. */
const EWMA_ALPHA = 0.3;
/** Targets held (projects × targets); the oldest healthy ones are forgotten first. */
const MAX_TARGETS = 10_000;

export interface HealthPolicy {
  /** The first cooldown (PARLEY_ROUTING_COOLDOWN_MS); each trip in a row doubles it, up to MAX_COOLDOWN_FACTOR times. */
  baseCooldownMs: number;
}

/** What must reach the database (and so every instance): a trip or a recovery. */
export type HealthChange =
  | { kind: 'trip'; target: TargetRef; until: number; trips: number; failures: number; reason: string }
  | { kind: 'recover'; target: TargetRef; until: number };

interface State {
  target: TargetRef;
  /** Fallback-worthy failures in a row seen here while not cooling down. */
  failures: number;
  latencyMs: number | undefined;
  cooling: boolean;
  /** End of the current (or last) cooldown, epoch ms; 0 when it never cooled down. */
  until: number;
  /** Trips in a row: the current cooldown's rank (its length doubles with each). Kept after a recovery, for a target that flaps. */
  trips: number;
  /** When this instance let a probe through after the cooldown ended. */
  probeAt: number | undefined;
  /** `HealthState.changes` when its cooling state last changed: a reload read before that is older than it. */
  changed: number;
}

export const targetKey = (t: TargetRef): string => `${t.projectId}\u0000${t.provider}\u0000${t.model}`;

export class HealthState {
  private readonly states = new Map<string, State>();
  /** Counts changes of cooling state, so a reload can tell the ones that happened while it read. */
  private changeCount = 0;

  constructor(
    private readonly policy: HealthPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** Pass it to `reload` as read before the rows were: changes after it win over the rows. */
  get changes(): number {
    return this.changeCount;
  }

  get maxCooldownMs(): number {
    return this.policy.baseCooldownMs * MAX_COOLDOWN_FACTOR;
  }

  /** Cooldown of the `trips`-th trip in a row. */
  cooldownMs(trips: number): number {
    return Math.min(this.policy.baseCooldownMs * 2 ** Math.min(trips - 1, 30), this.maxCooldownMs);
  }

  /** Healthy, or cooled down with a probe due and none out from here: then this caller is the probe. */
  available(target: TargetRef): boolean {
    const state = this.states.get(targetKey(target));
    if (!state?.cooling) return true;
    const now = this.now();
    if (now < state.until) return false;
    if (state.probeAt !== undefined && now - state.probeAt < PROBE_LEASE_MS) return false;
    state.probeAt = now;
    return true;
  }

  latencyMs(target: TargetRef): number | undefined {
    return this.states.get(targetKey(target))?.latencyMs;
  }

  /** Counts an outcome; returns the change to share, if it tripped or recovered the target. */
  record(target: TargetRef, outcome: AttemptOutcome): HealthChange | null {
    const state = this.stateOf(target);
    const now = this.now();
    if (outcome.ok) {
      state.latencyMs =
        state.latencyMs === undefined ? outcome.latencyMs : state.latencyMs + EWMA_ALPHA * (outcome.latencyMs - state.latencyMs);
      state.failures = 0;
      // A call begun before the trip that succeeds during the cooldown proves nothing: only a success after it (the probe) recovers.
      if (!state.cooling || now < state.until) return null;
      Object.assign(state, { cooling: false, probeAt: undefined, changed: ++this.changeCount });
      return { kind: 'recover', target: state.target, until: state.until };
    }
    if (outcome.reason === 'other') {
      // The caller's own error says nothing of the target's health; a probe it ended frees the next.
      state.probeAt = undefined;
      return null;
    }
    if (state.cooling) {
      // During the cooldown: late outcomes of calls begun before it, not counted (one write per cooldown).
      if (now < state.until) return null;
      return this.trip(state, state.trips + 1, this.cooldownMs(state.trips + 1), outcome.reason, now);
    }
    state.failures += 1;
    const retryAfter = outcome.reason === 'rate_limit' && outcome.retryAfterMs !== undefined && outcome.retryAfterMs > 0;
    if (!retryAfter && state.failures < FAILURES_TO_TRIP) return null;
    // A target that trips again soon after its last cooldown ended continues its series (it flaps).
    const trips = (state.trips > 0 && now - state.until < this.maxCooldownMs ? state.trips : 0) + 1;
    const ms = retryAfter ? Math.min(outcome.retryAfterMs!, this.maxCooldownMs) : this.cooldownMs(trips);
    return this.trip(state, trips, ms, outcome.reason, now);
  }

  /** Another instance's trip (or a row read at start): taken when it ends later than what is held. */
  applyTrip(target: TargetRef, until: number, trips: number): boolean {
    const state = this.stateOf(target);
    if (until <= state.until) return false;
    Object.assign(state, { cooling: true, until, trips, failures: 0, probeAt: undefined, changed: ++this.changeCount });
    return true;
  }

  /** Another instance's recovery from the cooldown that ended at `until`: ignored when a later trip is held. */
  applyRecovery(target: TargetRef, until: number): boolean {
    const state = this.states.get(targetKey(target));
    if (!state?.cooling || state.until > until) return false;
    Object.assign(state, { cooling: false, failures: 0, probeAt: undefined, changed: ++this.changeCount });
    return true;
  }

  /**
   * After notifications may have been missed: the stored rows are the truth. Targets cooling here
   * but absent from them recovered elsewhere, unless `keep` says a write of ours is still under way.
   */
  reload(rows: { target: TargetRef; until: number; trips: number }[], keep: (key: string) => boolean, readSince = -1): void {
    const stored = new Set(rows.map((row) => targetKey(row.target)));
    // A change applied while the rows were being read (a notification, a trip here) is newer than they are.
    const newer = (state: State | undefined) => state !== undefined && state.changed > readSince && readSince >= 0;
    for (const [key, state] of this.states) {
      if (state.cooling && !stored.has(key) && !keep(key) && !newer(state))
        Object.assign(state, { cooling: false, failures: 0, probeAt: undefined });
    }
    for (const row of rows) if (!newer(this.states.get(targetKey(row.target)))) this.applyTrip(row.target, row.until, row.trips);
  }

  /** Whether this target is cooling down now (no side effect: `available` may hand out a probe). */
  cooling(target: TargetRef): boolean {
    const state = this.states.get(targetKey(target));
    return state !== undefined && state.cooling && this.now() < state.until;
  }

  /** Targets cooling down now (the cooling-targets gauge). */
  coolingCount(): number {
    const now = this.now();
    let n = 0;
    for (const state of this.states.values()) if (state.cooling && now < state.until) n++;
    return n;
  }

  private trip(state: State, trips: number, ms: number, reason: string, now: number): HealthChange {
    const failures = Math.max(state.failures, 1);
    Object.assign(state, { cooling: true, until: now + ms, trips, failures: 0, probeAt: undefined, changed: ++this.changeCount });
    return { kind: 'trip', target: state.target, until: state.until, trips, failures, reason };
  }

  private stateOf(target: TargetRef): State {
    const key = targetKey(target);
    let state = this.states.get(key);
    if (state) return state;
    if (this.states.size >= MAX_TARGETS) this.forgetOldestHealthy();
    state = {
      target: { ...target },
      failures: 0,
      latencyMs: undefined,
      cooling: false,
      until: 0,
      trips: 0,
      probeAt: undefined,
      changed: 0,
    };
    this.states.set(key, state);
    return state;
  }

  private forgetOldestHealthy(): void {
    for (const [key, state] of this.states) {
      if (!state.cooling) return void this.states.delete(key);
    }
  }
}
