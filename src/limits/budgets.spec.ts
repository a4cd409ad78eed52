import fc from 'fast-check';

import { nanoUsd, usdText } from './budgets';
import { CostEstimates } from './cost-estimates';
import { CounterIncrement, LimitsRepository } from './limits.repository';
import { SharedCounters } from './shared-counters';

describe('budget amounts', () => {
  it('reads back every amount it writes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e15 }),
        (nano) => nanoUsd(usdText(nano), 'up') === nano && nanoUsd(usdText(nano), 'down') === nano,
      ),
      { seed: 18 },
    );
  });

  it('turns USD decimals into nano-USD exactly: a cost rounds up, a budget down', () => {
    expect(nanoUsd('0.00275', 'up')).toBe(2_750_000);
    expect(nanoUsd('1e-7', 'up')).toBe(100);
    expect(nanoUsd('0.0000000001', 'up')).toBe(1);
    expect(nanoUsd('0.0000000001', 'down')).toBe(0);
    expect(nanoUsd(25, 'down')).toBe(25_000_000_000);
    expect(nanoUsd(0.1, 'down')).toBe(100_000_000);
    expect(nanoUsd(1_000_000, 'down')).toBe(1e15);
    expect(usdText(2_750_000)).toBe('0.00275');
    expect(usdText(25_000_000_000)).toBe('25');
    expect(usdText(0)).toBe('0');
  });

  it("estimates a key's next call high: at once up to a dearer call, down by a tenth per cheaper one", () => {
    const estimates = new CostEstimates();
    expect(estimates.of('p', 'k')).toBe(0);
    estimates.observe('p', 'k', 1000);
    expect(estimates.of('p', 'k')).toBe(1000);
    // Another key of the project starts from the project's estimate.
    expect(estimates.of('p', 'other')).toBe(1000);
    estimates.observe('p', 'k', 5000);
    expect(estimates.of('p', 'k')).toBe(5000);
    estimates.observe('p', 'k', 0);
    expect(estimates.of('p', 'k')).toBe(4500);
  });
});

describe('budgets on two instances (property)', () => {
  /** The database side of the counters, in memory, as two instances share it. */
  function store() {
    const totals = new Map<string, number>();
    const key = (i: CounterIncrement) => `${i.projectId}|${i.scope}|${i.windowStart}`;
    return {
      totals,
      repo: {
        addToCounters: async (increments: CounterIncrement[]) =>
          increments.map((i) => {
            totals.set(key(i), (totals.get(key(i)) ?? 0) + i.amount);
            return totals.get(key(i))!;
          }),
        addWithin: async (i: CounterIncrement, limit: number) => {
          const total = (totals.get(key(i)) ?? 0) + i.amount;
          if (total > limit) return null;
          totals.set(key(i), total);
          return total;
        },
      } as unknown as LimitsRepository,
    };
  }

  it('whatever the interleaving of calls and syncs, the spend passes the budget by at most one call plus a tenth', async () => {
    const now = 1_800_000_000_000;
    const step = fc.record({ op: fc.constantFrom('start', 'start', 'end', 'sync'), instance: fc.constantFrom(0, 1) });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 400 }),
        fc.array(step, { maxLength: 300 }),
        async (limit, cost, steps) => {
          const shared = store();
          const instances = [new SharedCounters(shared.repo, () => 2), new SharedCounters(shared.repo, () => 2)];
          const running: Array<Array<{ windowStart: number }>> = [[], []];
          let admitted = 0;
          const end = (i: number) => {
            const call = running[i].shift();
            if (!call) return;
            // The call's real cost (as estimated) charged, its reservation given back.
            instances[i].giveBack('p', 'k:usd-day', 86_400, call.windowStart, cost, now);
            instances[i].add('p', 'k:usd-day', 86_400, cost, now);
          };
          for (const { op, instance } of steps) {
            if (op === 'start') {
              const taken = await instances[instance].reserve('p', 'k:usd-day', 86_400, limit, cost, now);
              if (taken.ok) {
                admitted++;
                running[instance].push(taken);
              }
            } else if (op === 'end') end(instance);
            else await instances[instance].sync(now);
          }
          for (const i of [0, 1]) while (running[i].length > 0) end(i);
          await Promise.all(instances.map((c) => c.sync(now)));
          const spent = [...shared.totals.values()].reduce((a, b) => a + b, 0);
          expect(spent).toBe(admitted * cost);
          expect(spent).toBeLessThanOrEqual(limit + cost + Math.floor(limit / 10));
        },
      ),
      { seed: 18, numRuns: 300 },
    );
  });
});
