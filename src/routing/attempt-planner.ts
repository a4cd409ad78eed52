import type { ResolvedRouting, ResolvedRoutingTarget } from '../registry/resolved-deployment';
import type { TargetHealth, TargetRef } from './target-health';

/** What the planner asks of health: synchronous, from what this instance holds (target-health.ts). */
export type PlannerHealth = Pick<TargetHealth, 'cooling' | 'latencyMs'>;

/** The target that last served the thread or conversation (TargetHealth.stickyTarget), if any. */
export interface StickyTarget {
  provider: string;
  model: string;
}

const refOf = (projectId: string, target: ResolvedRoutingTarget): TargetRef => ({
  projectId,
  provider: target.provider.name,
  model: target.model,
});

/**
 * The order in which a call tries a routing block's targets (docs/routing.md, "Strategies"):
 * the sticky target first while it is not cooling down, then the strategy's order of those not
 * cooling down. When all are cooling down they are all tried anyway, in the strategy's order: a
 * call never fails without trying. Asks `cooling`, which has no side effect: the probe of a target
 * whose cooldown ended is taken only right before its attempt (RoutedCalls). Pure but for `random`
 * (the weighted draw), so tests pass their own.
 */
export function planAttempts(
  routing: ResolvedRouting,
  health: PlannerHealth,
  projectId: string,
  sticky?: StickyTarget,
  random: () => number = Math.random,
): ResolvedRoutingTarget[] {
  const targets = routing.targets;
  if (targets.length === 1) return targets;
  const ordered = orderByStrategy(routing, health, projectId, random);
  const available = ordered.filter((target) => !health.cooling(refOf(projectId, target)));
  const plan = available.length > 0 ? available : ordered;
  if (!sticky) return plan;
  const at = plan.findIndex((target) => target.provider.name === sticky.provider && target.model === sticky.model);
  // Only a sticky target not cooling down goes first (when all are cooling down, none is sticky either).
  if (at <= 0 || available.length === 0) return plan;
  return [plan[at], ...plan.slice(0, at), ...plan.slice(at + 1)];
}

function orderByStrategy(
  routing: ResolvedRouting,
  health: PlannerHealth,
  projectId: string,
  random: () => number,
): ResolvedRoutingTarget[] {
  switch (routing.strategy) {
    case 'priority':
      return routing.targets;
    case 'weighted':
      return weightedOrder(routing.targets, random);
    case 'least-latency':
      return latencyOrder(routing.targets, health, projectId);
  }
}

/**
 * Targets drawn one after another without replacement, each with a probability proportional to
 * its weight; weight-0 targets come last in list order (they serve only as fallbacks).
 */
export function weightedOrder(targets: readonly ResolvedRoutingTarget[], random: () => number): ResolvedRoutingTarget[] {
  const pool = targets.filter((target) => target.weight > 0);
  const zero = targets.filter((target) => !(target.weight > 0));
  const order: ResolvedRoutingTarget[] = [];
  let total = pool.reduce((sum, target) => sum + target.weight, 0);
  while (pool.length > 0) {
    let point = random() * total;
    let i = 0;
    // The last target takes whatever rounding leaves over.
    while (i < pool.length - 1 && point >= pool[i].weight) point -= pool[i++].weight;
    const [drawn] = pool.splice(i, 1);
    total -= drawn.weight;
    order.push(drawn);
  }
  return [...order, ...zero];
}

/** Unknown latencies first in list order (so every target gets measured), then the fastest first. */
function latencyOrder(targets: readonly ResolvedRoutingTarget[], health: PlannerHealth, projectId: string): ResolvedRoutingTarget[] {
  const known = targets.map((target) => ({ target, latency: health.latencyMs(refOf(projectId, target)) }));
  return known
    .map((entry, position) => ({ ...entry, position }))
    .sort((a, b) => {
      if (a.latency === undefined || b.latency === undefined) {
        if (a.latency === b.latency) return a.position - b.position;
        return a.latency === undefined ? -1 : 1;
      }
      return a.latency - b.latency || a.position - b.position;
    })
    .map((entry) => entry.target);
}
