import { CounterIncrement, LimitsRepository } from './limits.repository';
import { SharedCounters, windowOf } from './shared-counters';

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
    // A sync every ten calls, as the 100 ms tick does at 100 calls a second: each restores the
    // instance's share (a tenth of what the window has left) to admit without asking.
    for (let i = 0; i < 150; i++) {
      if ((await counters.take('p', 'key:k:rpm', 60, 100, now)).ok) admitted++;
      if (i % 10 === 9) await counters.sync(now);
    }
    await counters.sync(now);
    expect(admitted).toBe(100);
    expect([...store.totals.values()]).toEqual([100]);
    expect(store.conditionalCalls).toBeLessThan(50);
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

  it("keeps two instances within 10 % of the limit when many calls come between two syncs: an instance's unsent admissions never pass its share", async () => {
    for (const limit of [50, 100, 1000]) {
      const store = new FakeCounterStore();
      const a = new SharedCounters(store.asRepository(), () => 2);
      const b = new SharedCounters(store.asRepository(), () => 2);
      let admitted = 0;
      // Calls alternate between the instances, and neither syncs before the window is full.
      for (let i = 0; i < limit * 3; i++) if ((await (i % 2 ? a : b).take('p', 'project:rpm', 60, limit, now)).ok) admitted++;
      await Promise.all([a.sync(now), b.sync(now)]);
      expect(admitted).toBeGreaterThanOrEqual(limit);
      expect(admitted).toBeLessThanOrEqual(limit * 1.1);
      expect([...store.totals.values()]).toEqual([admitted]);
    }
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

  it('reserves amounts while the total is below the limit, and gives them back even once they were sent', async () => {
    const store = new FakeCounterStore();
    const counters = new SharedCounters(store.asRepository(), () => 1);
    const first = await counters.reserve('p', 'key:k:usd-day', 86_400, 1000, 400, now);
    const second = await counters.reserve('p', 'key:k:usd-day', 86_400, 1000, 400, now);
    // 800 < 1000: admitted, and it may carry the total past the limit (a budget's last call).
    const third = await counters.reserve('p', 'key:k:usd-day', 86_400, 1000, 400, now);
    expect([first.ok, second.ok, third.ok]).toEqual([true, true, true]);
    expect((await counters.reserve('p', 'key:k:usd-day', 86_400, 1000, 400, now)).ok).toBe(false);
    await counters.sync(now);
    expect([...store.totals.values()]).toEqual([1200]);
    // The three calls end: reservations back, their real cost (100 each) charged.
    for (const taken of [first, second, third]) counters.giveBack('p', 'key:k:usd-day', 86_400, taken.windowStart, 400, now);
    counters.add('p', 'key:k:usd-day', 86_400, 300, now);
    await counters.sync(now);
    expect([...store.totals.values()]).toEqual([300]);
    expect((await counters.reserve('p', 'key:k:usd-day', 86_400, 1000, 100, now)).ok).toBe(true);
  });

  it('gives a reservation back to the window it was taken from, after that window ended', async () => {
    const store = new FakeCounterStore();
    const counters = new SharedCounters(store.asRepository(), () => 1);
    const lateInDay = Math.floor(now / 86_400_000) * 86_400_000 + 86_399_000;
    const taken = await counters.reserve('p', 's:usd-day', 86_400, 1000, 50, lateInDay);
    counters.giveBack('p', 's:usd-day', 86_400, taken.windowStart, 50, lateInDay + 5000);
    counters.add('p', 's:usd-day', 86_400, 40, lateInDay + 5000);
    await counters.sync(lateInDay + 5000);
    expect(Object.fromEntries(store.totals)).toEqual({
      [`p|s:usd-day|${taken.windowStart}`]: 0,
      [`p|s:usd-day|${taken.windowStart + 86_400}`]: 40,
    });
  });

  it('keeps calendar-month windows: from the first of the month, UTC, as long as the month', async () => {
    expect(windowOf('month', Date.UTC(2026, 1, 14, 12))).toEqual({ start: Date.UTC(2026, 1, 1) / 1000, seconds: 28 * 86_400 });
    expect(windowOf('month', Date.UTC(2026, 11, 31, 23, 59, 59))).toEqual({ start: Date.UTC(2026, 11, 1) / 1000, seconds: 31 * 86_400 });
    expect(windowOf(86_400, Date.UTC(2026, 10, 26, 5))).toEqual({ start: Date.UTC(2026, 10, 26) / 1000, seconds: 86_400 });
  });

  it("reports a window's total once while its amounts are being sent, whether or not the database has them yet", async () => {
    const store = new FakeCounterStore();
    const repo = store.asRepository();
    // Once armed, an exchange's statement commits at once but its answer comes back only when released.
    let release!: () => void;
    let answered: Promise<void> | undefined = undefined;
    const addToCounters = repo.addToCounters.bind(repo);
    (repo as { addToCounters: LimitsRepository['addToCounters'] }).addToCounters = async (increments) => {
      const totals = await addToCounters(increments);
      await answered;
      return totals;
    };
    const counters = new SharedCounters(repo, () => 1);
    const { start } = windowOf(86_400, now);
    counters.add('p', 'project:usd-day', 86_400, 5, now);
    await counters.sync(now);
    counters.add('p', 'project:usd-day', 86_400, 1, now);
    answered = new Promise<void>((resolve) => (release = resolve));
    const exchanging = counters.sync(now);
    await new Promise((resolve) => setImmediate(resolve));
    const shared = () => store.totals.get(`p|project:usd-day|${start}`) ?? 0;
    // Committed, not yet answered: the database has the 1 and so does "being sent".
    expect(shared()).toBe(6);
    expect(counters.totalWith('p', 'project:usd-day', start, shared())).toBe(6);
    // Read before the commit: the database does not have it yet.
    expect(counters.totalWith('p', 'project:usd-day', start, 5)).toBe(6);
    release();
    await exchanging;
    counters.add('p', 'project:usd-day', 86_400, 2, now);
    expect(counters.totalWith('p', 'project:usd-day', start, shared())).toBe(8);
    // Another instance's amounts in the database count too.
    expect(counters.totalWith('p', 'project:usd-day', start, shared() + 3)).toBe(11);
  });
});
