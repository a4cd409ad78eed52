import { FAILURES_TO_TRIP, HealthState, PROBE_LEASE_MS } from './health-state';
import type { AttemptOutcome } from './target-health';

const target = { projectId: 'p1', provider: 'primary', model: 'gpt-4o' };
const other = { projectId: 'p2', provider: 'primary', model: 'gpt-4o' };
const fail = (reason: 'server_error' | 'rate_limit' | 'other' = 'server_error', retryAfterMs?: number): AttemptOutcome => ({
  ok: false,
  reason,
  latencyMs: 5,
  ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
});
const ok = (latencyMs = 100): AttemptOutcome => ({ ok: true, latencyMs });

describe('HealthState (a fake clock)', () => {
  let now: number;
  let state: HealthState;
  beforeEach(() => {
    now = 1_000_000;
    state = new HealthState({ baseCooldownMs: 5000 }, () => now);
  });

  const failTimes = (n: number) => {
    const changes = [];
    for (let i = 0; i < n; i++) changes.push(state.record(target, fail()));
    return changes;
  };

  it('trips after three fallback-worthy failures in a row, for the base cooldown, in that project only', () => {
    expect(failTimes(FAILURES_TO_TRIP - 1)).toEqual([null, null]);
    expect(state.available(target)).toBe(true);
    const trip = state.record(target, fail());
    expect(trip).toEqual({ kind: 'trip', target, until: now + 5000, trips: 1, failures: 3, reason: 'server_error' });
    expect(state.available(target)).toBe(false);
    expect(state.available(other)).toBe(true);
    expect(state.coolingCount()).toBe(1);
  });

  it("a success or the caller's own error in between: a success resets the count, `other` does not count", () => {
    failTimes(2);
    expect(state.record(target, ok())).toBeNull();
    failTimes(2);
    expect(state.record(target, fail('other'))).toBeNull();
    expect(state.available(target)).toBe(true);
    expect(state.record(target, fail())).not.toBeNull();
  });

  it('writes once per cooldown: failures during it (calls begun before) are not counted', () => {
    failTimes(3);
    now += 1000;
    expect(failTimes(50).every((change) => change === null)).toBe(true);
    expect(state.record(target, ok())).toBeNull(); // a straggler's success during the cooldown recovers nothing
    expect(state.available(target)).toBe(false);
  });

  it('lets one probe through when the cooldown ends; its success recovers the target', () => {
    failTimes(3);
    now += 4999;
    expect(state.available(target)).toBe(false);
    now += 1;
    expect(state.available(target)).toBe(true);
    expect(state.available(target)).toBe(false); // the probe is out: the others wait for it
    expect(state.coolingCount()).toBe(0);
    expect(state.record(target, ok())).toEqual({ kind: 'recover', target, until: 1_005_000 });
    expect(state.available(target)).toBe(true);
    expect(state.available(target)).toBe(true);
  });

  it('a failed probe trips again with a cooldown twice as long, doubling up to 60 times the base', () => {
    let until = failTimes(3)[2]!.until;
    const lengths: number[] = [];
    for (let i = 0; i < 9; i++) {
      now = until;
      expect(state.available(target)).toBe(true);
      const trip = state.record(target, fail());
      expect(trip).toMatchObject({ kind: 'trip', trips: i + 2 });
      until = trip!.until;
      lengths.push(until - now);
    }
    expect(lengths).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000, 300_000]);
  });

  it("frees the next probe when one never reports (PROBE_LEASE_MS), or ended on the caller's own error", () => {
    failTimes(3);
    now += 5000;
    expect(state.available(target)).toBe(true);
    now += PROBE_LEASE_MS - 1;
    expect(state.available(target)).toBe(false);
    now += 1;
    expect(state.available(target)).toBe(true);
    state.record(target, fail('other'));
    expect(state.available(target)).toBe(true);
  });

  it('honours a Retry-After on a 429 at once, capped at the longest cooldown', () => {
    expect(state.record(target, fail('rate_limit', 12_000))).toMatchObject({ kind: 'trip', until: now + 12_000, trips: 1 });
    expect(state.available(target)).toBe(false);
    const again = new HealthState({ baseCooldownMs: 5000 }, () => now);
    expect(again.record(target, fail('rate_limit', 3_600_000))).toMatchObject({ until: now + 300_000 });
    // Without Retry-After a 429 counts as any failure.
    expect(again.record(other, fail('rate_limit'))).toBeNull();
  });

  it('continues the series for a target that trips again soon after recovering (it flaps), not after a long calm', () => {
    failTimes(3);
    now += 5000;
    state.available(target);
    state.record(target, ok());
    expect(failTimes(3)[2]).toMatchObject({ trips: 2, until: now + 10_000 });
    now += 10_000;
    state.available(target);
    state.record(target, ok());
    now += 300_000;
    expect(failTimes(3)[2]).toMatchObject({ trips: 1, until: now + 5000 });
  });

  it("applies other instances' trips and recoveries only when newer than what it holds", () => {
    expect(state.applyTrip(target, now + 5000, 1)).toBe(true);
    expect(state.available(target)).toBe(false);
    expect(state.applyTrip(target, now + 5000, 1)).toBe(false); // its own notification coming back
    expect(state.applyRecovery(target, now + 4000)).toBe(false); // a recovery from an earlier cooldown
    expect(state.applyRecovery(target, now + 5000)).toBe(true);
    expect(state.available(target)).toBe(true);
    expect(state.applyTrip(target, now + 5000, 1)).toBe(false); // that trip's late notification does not cool it again
  });

  it('reloads from the stored rows: absent ones recovered elsewhere unless a write of ours is under way', () => {
    failTimes(3);
    state.applyTrip(other, now + 5000, 1);
    state.reload([], (key) => key.startsWith('p1'));
    expect(state.available(target)).toBe(false);
    expect(state.available(other)).toBe(true);
    state.reload([{ target: other, until: now + 8000, trips: 2 }], () => false);
    expect(state.available(target)).toBe(true);
    expect(state.available(other)).toBe(false);
  });

  it('keeps what changed while the rows were being read: a reload never undoes a newer notification', () => {
    const readSince = state.changes;
    // Read before another instance's trip committed, then its notification arrived: the rows lack it.
    state.applyTrip(other, now + 5000, 1);
    state.reload([], () => false, readSince);
    expect(state.available(other)).toBe(false);
    // And a recovery that arrived while reading is not undone by the row read before it.
    const again = state.changes;
    state.applyRecovery(other, now + 5000);
    state.reload([{ target: other, until: now + 5000, trips: 1 }], () => false, again);
    expect(state.available(other)).toBe(true);
    // A later reload, read after both, is the truth again.
    state.reload([], () => false, state.changes);
    expect(state.available(other)).toBe(true);
  });

  it('plans a target whose cooldown ended without taking its probe: the probe goes to the call that reaches it', () => {
    failTimes(3);
    expect(state.cooling(target)).toBe(true);
    now += 5000;
    // Planned by any number of calls (an earlier target serves them): no side effect.
    for (let i = 0; i < 5; i++) expect(state.cooling(target)).toBe(false);
    // The first call that reaches it takes the probe; another call meanwhile is told to skip it.
    expect(state.available(target)).toBe(true);
    expect(state.available(target)).toBe(false);
    expect(state.cooling(target)).toBe(false);
  });

  it('keeps a moving average of successful latencies', () => {
    expect(state.latencyMs(target)).toBeUndefined();
    state.record(target, ok(100));
    state.record(target, ok(200));
    expect(state.latencyMs(target)).toBeCloseTo(130);
    state.record(target, fail());
    expect(state.latencyMs(target)).toBeCloseTo(130);
  });
});
