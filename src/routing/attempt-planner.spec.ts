import fc from 'fast-check';

import type { ResolvedRouting, ResolvedRoutingTarget } from '../registry/resolved-deployment';
import { planAttempts, PlannerHealth, weightedOrder } from './attempt-planner';

const target = (index: number, weight = 1): ResolvedRoutingTarget => ({
  index,
  provider: { name: `p${index}`, type: 'openai', credentialId: null },
  model: `m${index}`,
  weight,
  parameters: {},
});
const routing = (strategy: ResolvedRouting['strategy'], targets: ResolvedRoutingTarget[]): ResolvedRouting => ({
  strategy,
  targets,
  fallbackOn: ['rate_limit', 'server_error', 'timeout', 'connection', 'first_token_timeout'],
});
const healthy: PlannerHealth = { cooling: () => false, latencyMs: () => undefined };
const down = (...providers: string[]): PlannerHealth => ({ cooling: (t) => providers.includes(t.provider), latencyMs: () => undefined });
const indexes = (plan: ResolvedRoutingTarget[]) => plan.map((t) => t.index);
const three = [target(0), target(1), target(2)];

describe('planAttempts', () => {
  it('priority: the list order', () => {
    expect(indexes(planAttempts(routing('priority', three), healthy, 'proj'))).toEqual([0, 1, 2]);
  });

  it('skips targets that are not available, and tries them all in order when none is', () => {
    expect(indexes(planAttempts(routing('priority', three), down('p0'), 'proj'))).toEqual([1, 2]);
    expect(indexes(planAttempts(routing('priority', three), down('p0', 'p1', 'p2'), 'proj'))).toEqual([0, 1, 2]);
  });

  it('puts an available sticky target first, and ignores one that is not available or not a target', () => {
    expect(indexes(planAttempts(routing('priority', three), healthy, 'proj', { provider: 'p2', model: 'm2' }))).toEqual([2, 0, 1]);
    expect(indexes(planAttempts(routing('priority', three), down('p2'), 'proj', { provider: 'p2', model: 'm2' }))).toEqual([0, 1]);
    expect(indexes(planAttempts(routing('priority', three), healthy, 'proj', { provider: 'p9', model: 'm2' }))).toEqual([0, 1, 2]);
  });

  it('least-latency: unknown latencies first in list order, then the fastest', () => {
    const latency: Record<string, number> = { p0: 300, p2: 100 };
    const health: PlannerHealth = { cooling: () => false, latencyMs: (t) => latency[t.provider] };
    expect(indexes(planAttempts(routing('least-latency', three), health, 'proj'))).toEqual([1, 2, 0]);
  });

  it('asks health about the project the call is in', () => {
    const asked: string[] = [];
    const health: PlannerHealth = { cooling: (t) => (asked.push(t.projectId), false), latencyMs: () => undefined };
    planAttempts(routing('priority', three), health, 'proj-1');
    expect(new Set(asked)).toEqual(new Set(['proj-1']));
  });

  it('weighted: draws by weight, weight-0 targets last', () => {
    const targets = [target(0, 1), target(1, 0), target(2, 3)];
    // random 0.1 of total 4 lands on target 0; the rest by weight.
    expect(indexes(planAttempts(routing('weighted', targets), healthy, 'proj', undefined, () => 0.1))).toEqual([0, 2, 1]);
    expect(indexes(planAttempts(routing('weighted', targets), healthy, 'proj', undefined, () => 0.5))).toEqual([2, 0, 1]);
  });

  it('weighted: every order is a permutation of the targets, and first draws follow the weights', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (weights, r) => {
          const targets = weights.map((w, i) => target(i, w));
          const order = weightedOrder(targets, () => r);
          expect([...indexes(order)].sort((a, b) => a - b)).toEqual(targets.map((t) => t.index));
          if (weights.some((w) => w > 0)) expect(order[0].weight).toBeGreaterThan(0);
        },
      ),
    );
    const targets = [target(0, 1), target(1, 3)];
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    let first1 = 0;
    for (let i = 0; i < 4000; i++) if (weightedOrder(targets, random)[0].index === 1) first1++;
    expect(first1 / 4000).toBeGreaterThan(0.7);
    expect(first1 / 4000).toBeLessThan(0.8);
  });
});
