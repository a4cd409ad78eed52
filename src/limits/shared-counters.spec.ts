import { CounterIncrement, LimitsRepository } from './limits.repository';
import { SharedCounters } from './shared-counters';

/** The database side of the counters, in memory: what several instances share. */
class FakeCounterStore {
  readonly totals = new Map<string, number>();
  conditionalCalls = 0;
  private key = (i: CounterIncrement) => `${i.projectId}|${i.scope}|${i.windowStart}`;

  asRepository(): LimitsRepository {
    return {
      addToCounters: async (increments: CounterIncrement[]) =>
        increments.map((i) => {
          const total = (this.totals.get(this.key(i)) ?? 0) + i.amount;
          this.totals.set(this.key(i), total);
          return total;
        }),
      addWithin: async (i: CounterIncrement, limit: number) => {
        this.conditionalCalls++;
        const total = (this.totals.get(this.key(i)) ?? 0) + i.amount;
        if (total > limit) return null;
        this.totals.set(this.key(i), total);
        return total;
      },
    } as unknown as LimitsRepository;
  }
}

describe('SharedCounters', () => {
  const now = 1_800_000_000_000;

  it('admits exactly the limit on one instance, asking the database only when its budget is spent', async () => {
    const store = new FakeCounterStore();
    const counters = new SharedCounters(store.asRepository(), () => 1);
    let admitted = 0;
    for (let i = 0; i < 150; i++) if ((await counters.take('p', 'key:k:rpm', 60, 100, now)).ok) admitted++;
    await counters.sync(now);
    expect(admitted).toBe(100);
    expect([...store.totals.values()]).toEqual([100]);
    expect(store.conditionalCalls).toBeLessThan(80);
  });

  it('keeps two instances together within 10 % of the limit, and every admission is counted', async () => {
    const store = new FakeCounterStore();
    const a = new SharedCounters(store.asRepository(), () => 2);
    const b = new SharedCounters(store.asRepository(), () => 2);
    let admitted = 0;
    for (let round = 0; round < 40; round++) {
      for (const counters of [a, b]) {
        for (let i = 0; i < 3; i++) if ((await counters.take('p', 'project:rpm', 60, 100, now)).ok) admitted++;
      }
      if (round % 3 === 0) await Promise.all([a.sync(now), b.sync(now)]);
    }
    await Promise.all([a.sync(now), b.sync(now)]);
    // Past the limit only by what the other instance had admitted and not yet sent.
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(105);
    expect([...store.totals.values()]).toEqual([admitted]);
  });

  it('starts a new window with a new budget, and reports the seconds left in the window', async () => {
    const store = new FakeCounterStore();
    const counters = new SharedCounters(store.asRepository(), () => 1);
    for (let i = 0; i < 2; i++) await counters.take('p', 's', 60, 2, now);
    const refused = await counters.take('p', 's', 60, 2, now);
    expect(refused.ok).toBe(false);
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
    expect((await counters.take('p', 's', 60, 2, now + 60_000)).ok).toBe(true);
  });

  it('counts additions without a check, and reads the window total once', async () => {
    const store = new FakeCounterStore();
    const counters = new SharedCounters(store.asRepository(), () => 1);
    counters.add('p', 'tpd', 86_400, 40, now);
    expect((await counters.used('p', 'tpd', 86_400, now)).used).toBe(40);
    await counters.sync(now);
    expect([...store.totals.values()]).toEqual([40]);
  });
});
