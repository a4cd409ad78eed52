import { Logger } from '@nestjs/common';

import { LimitsRepository } from './limits.repository';

/** A window's length in seconds (aligned on the Unix epoch, so a day is the UTC day), or the UTC calendar month. */
export type Period = number | 'month';

/** The window of `period` that `nowMs` falls in: its start (epoch seconds) and length. */
export function windowOf(period: Period, nowMs: number): { start: number; seconds: number } {
  if (period === 'month') {
    const now = new Date(nowMs);
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    return { start: start / 1000, seconds: (end - start) / 1000 };
  }
  return { start: Math.floor(nowMs / 1000 / period) * period, seconds: period };
}

interface WindowState {
  projectId: string;
  scope: string;
  windowStart: number;
  windowSeconds: number;
  /** The database's total at the last exchange (this instance's flushed amounts included). */
  base: number;
  /** Like base, but only ever a total the database returned (a refusal sets base to an estimate). */
  known: number;
  /** Admitted or added here, not yet sent. */
  pending: number;
  /** Being sent right now. */
  flushing: number;
  /** How many more this instance may admit before it asks the database again. */
  budget: number;
  limit: number;
  synced: boolean;
  lastUsedMs: number;
}

export interface TakeResult {
  ok: boolean;
  /** The window's total as far as this instance knows, this call included when ok. */
  used: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  /** The window taken from (epoch seconds), for giveBack. */
  windowStart: number;
}

/**
 * Fixed-window counters shared by every instance through the database, without a round trip per
 * call at steady state (docs/security.md, "Limits"): each instance admits calls from a local
 * budget and sends what it admitted every sync tick in one statement. The budget is a tenth of what
 * the window has left, split between the live instances; once it is spent every admission is a
 * conditional increment in the database. Only the other instances' unsent admissions escape that
 * check, so the limit is passed by less than a tenth.
 */
export class SharedCounters {
  private readonly logger = new Logger('Limits');
  private readonly windows = new Map<string, WindowState>();
  private syncing = false;
  /** The sync under way, if any. */
  private exchange: Promise<void> | undefined;

  constructor(
    private readonly repo: LimitsRepository,
    private readonly liveInstances: () => number,
  ) {}

  /** Takes one unit of `limit` in the current window of `windowSeconds`. */
  take(projectId: string, scope: string, windowSeconds: Period, limit: number, nowMs = Date.now()): Promise<TakeResult> {
    return this.reserve(projectId, scope, windowSeconds, limit, 1, nowMs);
  }

  /**
   * Takes `amount` if the window's total is still below `limit` (a budget's reservation may carry
   * it past: docs/usage.md, "Budgets"); for an amount of 1 that is "total + 1 <= limit".
   */
  async reserve(projectId: string, scope: string, period: Period, limit: number, amount: number, nowMs = Date.now()): Promise<TakeResult> {
    const state = this.stateOf(projectId, scope, period, nowMs);
    state.limit = limit;
    state.lastUsedMs = nowMs;
    const { windowStart } = state;
    const resetSeconds = Math.max(1, Math.ceil(state.windowStart + state.windowSeconds - nowMs / 1000));
    const used = state.base + state.pending + state.flushing;
    if (state.synced && used >= limit) return { ok: false, used, resetSeconds, windowStart };
    if (state.synced && state.budget >= amount) {
      state.budget -= amount;
      state.pending += amount;
      return { ok: true, used: used + amount, resetSeconds, windowStart };
    }
    // What is being sent may or may not be in the database's total yet: wait for that exchange
    // rather than count it twice (a budget's amounts are whole calls' costs).
    if (state.flushing !== 0 && this.exchange) {
      await this.exchange;
      return this.reserve(projectId, scope, period, limit, amount, nowMs);
    }
    // Our unsent admissions count against the limit too: the database checks total + unsent < limit.
    const unsent = state.pending + state.flushing;
    const total = await this.repo.addWithin({ projectId, scope, windowStart: state.windowStart, amount }, limit - unsent - 1 + amount);
    state.synced = true;
    if (total === null) {
      state.base = Math.max(state.base, limit - unsent);
      state.budget = 0;
      return { ok: false, used: limit, resetSeconds, windowStart };
    }
    state.base = Math.max(state.base, total);
    state.known = Math.max(state.known, total);
    state.budget = this.budgetFor(state);
    return { ok: true, used: state.base + state.pending + state.flushing, resetSeconds, windowStart };
  }

  /** Gives back `amount` reserved in the window starting at `windowStart`, even once it was sent. */
  giveBack(projectId: string, scope: string, period: Period, windowStart: number, amount: number, nowMs = Date.now()): void {
    if (amount <= 0) return;
    const state = this.stateOf(projectId, scope, period, windowStart * 1000);
    state.pending -= amount;
    state.lastUsedMs = nowMs;
  }

  /** Gives back a unit taken by `take` that was not used after all (another limit refused the call). */
  untake(projectId: string, scope: string, windowSeconds: Period, nowMs = Date.now()): void {
    const state = this.stateOf(projectId, scope, windowSeconds, nowMs);
    if (state.pending > 0) state.pending -= 1;
  }

  /** The window's total as far as this instance knows; asks the database the first time. */
  async used(projectId: string, scope: string, windowSeconds: Period, nowMs = Date.now()): Promise<{ used: number; resetSeconds: number }> {
    const state = this.stateOf(projectId, scope, windowSeconds, nowMs);
    state.lastUsedMs = nowMs;
    if (!state.synced) {
      const [total] = await this.repo.addToCounters([{ projectId, scope, windowStart: state.windowStart, amount: 0 }]);
      state.base = Math.max(state.base, total);
      state.known = Math.max(state.known, total);
      state.synced = true;
    }
    return {
      used: state.base + state.pending + state.flushing,
      resetSeconds: Math.max(1, Math.ceil(state.windowStart + state.windowSeconds - nowMs / 1000)),
    };
  }

  /**
   * A window's total from the database's `shared` count read just now and what this instance holds.
   * An amount being sent may already be in `shared` (committed, its exchange not yet resolved) or
   * not: adding it to `shared` counted it twice in the first case (an admin read of a budget showed
   * one call too many), leaving it out missed it in the second. The larger of `shared` plus what is
   * unsent and this instance's own view (its last exchange's total plus everything since) is exact
   * in both cases, short only of other instances' amounts not yet in `shared`.
   */
  totalWith(projectId: string, scope: string, windowStart: number, shared: number): number {
    const state = this.windows.get(`${projectId}|${scope}|${windowStart}`);
    if (!state) return shared;
    return Math.max(shared + state.pending, state.known + state.pending + state.flushing);
  }

  /** Adds to the current window without a check (tokens, known only once a call has ended). */
  add(projectId: string, scope: string, windowSeconds: Period, amount: number, nowMs = Date.now()): void {
    if (amount <= 0) return;
    const state = this.stateOf(projectId, scope, windowSeconds, nowMs);
    state.pending += amount;
    state.lastUsedMs = nowMs;
  }

  /** Sends what was admitted and refreshes every window in use; one statement. */
  async sync(nowMs = Date.now()): Promise<void> {
    if (this.syncing) return;
    const run = this.exchangeAll(nowMs);
    this.exchange = run;
    void run.finally(() => {
      if (this.exchange === run) this.exchange = undefined;
    });
    return run;
  }

  /** Sends what is unsent now: an exchange under way may have taken its batch before it, so wait for that one first. */
  async flush(nowMs = Date.now()): Promise<void> {
    while (this.exchange) await this.exchange;
    await this.sync(nowMs);
  }

  private async exchangeAll(nowMs: number): Promise<void> {
    const batch = [...this.windows.values()].filter((s) => s.pending !== 0 || nowMs - s.lastUsedMs < 2000);
    if (batch.length === 0) return this.dropEnded(nowMs);
    this.syncing = true;
    for (const state of batch) {
      state.flushing = state.pending;
      state.pending = 0;
    }
    try {
      const totals = await this.repo.addToCounters(
        batch.map((s) => ({ projectId: s.projectId, scope: s.scope, windowStart: s.windowStart, amount: s.flushing })),
      );
      batch.forEach((state, i) => {
        // Assigned, not the larger of the two: a budget's reservations given back lower the total.
        state.base = totals[i];
        state.known = totals[i];
        state.flushing = 0;
        state.synced = true;
        state.budget = this.budgetFor(state);
      });
    } catch (err) {
      // Not sent: keep it for the next round.
      for (const state of batch) {
        state.pending += state.flushing;
        state.flushing = 0;
      }
      this.logger.warn(`could not share limit counters: ${(err as Error).message}`);
    } finally {
      this.syncing = false;
    }
    this.dropEnded(nowMs);
  }

  private budgetFor(state: WindowState): number {
    // This instance's share: a tenth of what the window had left at the database's last total,
    // split between the live instances. The budget is what of it this instance has not admitted
    // yet without sending: its unsent admissions never pass its share, however many calls it asks
    // the database about between two syncs. What the others admitted and not yet sent is then
    // always below a tenth of the limit, the most the limit can be passed by.
    const share = Math.floor((state.limit - state.base) / (10 * Math.max(1, this.liveInstances())));
    return Math.max(0, share - (state.pending + state.flushing));
  }

  private stateOf(projectId: string, scope: string, period: Period, nowMs: number): WindowState {
    const { start: windowStart, seconds: windowSeconds } = windowOf(period, nowMs);
    const key = `${projectId}|${scope}|${windowStart}`;
    let state = this.windows.get(key);
    if (!state) {
      state = {
        projectId,
        scope,
        windowStart,
        windowSeconds,
        base: 0,
        known: 0,
        pending: 0,
        flushing: 0,
        budget: 0,
        limit: 0,
        synced: false,
        lastUsedMs: nowMs,
      };
      this.windows.set(key, state);
    }
    return state;
  }

  /** Windows that ended and have nothing left to send. */
  private dropEnded(nowMs: number): void {
    for (const [key, state] of this.windows) {
      if (state.pending === 0 && state.flushing === 0 && state.windowStart + state.windowSeconds < nowMs / 1000) this.windows.delete(key);
    }
  }
}
