import type { SplitGuard } from '../../registry/deployments/guards';
import type { SplitArm } from '../../registry/deployments/split';
import type { VerdictArm } from '../verdicts';

/**
 * Whether a split's guards stop an arm (docs/experiments.md, "Guards"). Pure: the checker
 * (guard-checker.ts) reads the figures and writes the change.
 */

/** What a guard counts of one arm: its calls and errors, and per feedback name the values scored and their sum. */
export interface ArmCounts {
  calls: number;
  errors: number;
  scores: Record<string, { n: number; sum: number }>;
}

/**
 * The arms' counts when the checker first saw the deployment, read from `countedFrom`. The rollups
 * start at the hour the deployment began (and feedback has no time at all), so they may hold an
 * earlier deployment's calls of the same version; a guard counts only what came after this.
 */
export interface GuardBaseline {
  takenAt: string;
  /** The start of the hour the figures are read from, then and at every later check. */
  countedFrom: string;
  arms: Record<string, ArmCounts>;
}

/** A guard that stopped an arm: which, on what figures, and a sentence saying why. */
export interface Trip {
  version: number;
  guard: SplitGuard;
  figures: Record<string, unknown>;
  reason: string;
}

const NONE: ArmCounts = { calls: 0, errors: 0, scores: {} };

/** The counts the verdicts' figures hold of an arm. */
export function countsOf(arm: VerdictArm): ArmCounts {
  return {
    calls: arm.calls,
    errors: arm.errors,
    scores: Object.fromEntries(arm.scores.map((score) => [score.name, { n: score.n, sum: score.sum }])),
  };
}

/** What was counted after `baseline`; never below 0 (hourly rollups dropped by USAGE_RETENTION_DAYS only lower the sums). */
export function countsSince(now: ArmCounts, baseline: ArmCounts = NONE): ArmCounts {
  const scores: ArmCounts['scores'] = {};
  for (const [name, score] of Object.entries(now.scores)) {
    const before = baseline.scores[name] ?? { n: 0, sum: 0 };
    const n = Math.max(0, score.n - before.n);
    if (n > 0) scores[name] = { n, sum: score.sum - before.sum };
  }
  return { calls: Math.max(0, now.calls - baseline.calls), errors: Math.max(0, now.errors - baseline.errors), scores };
}

const round = (value: number, places = 6) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * The arms the guards stop: every arm after the control with a weight above 0, by the first of its
 * guards it crosses. The control is never stopped: the others are measured against it.
 */
export function tripsOf(arms: SplitArm[], guards: SplitGuard[], counts: (version: number) => ArmCounts): Trip[] {
  const [control, ...others] = arms;
  const trips: Trip[] = [];
  for (const arm of others.filter((a) => a.weight > 0)) {
    for (const guard of guards) {
      const trip = guard.metric === 'error_rate' ? errorRateTrip(arm, control, guard, counts) : feedbackTrip(arm, guard, counts);
      if (trip) {
        trips.push(trip);
        break;
      }
    }
  }
  return trips;
}

function errorRateTrip(
  arm: SplitArm,
  control: SplitArm,
  guard: Extract<SplitGuard, { metric: 'error_rate' }>,
  counts: (version: number) => ArmCounts,
): Trip | null {
  const a = counts(arm.version);
  if (a.calls < guard.minCalls) return null;
  const c = counts(control.version);
  const armRate = a.errors / a.calls;
  // A control without calls has shown no errors: the arm is held against 0 %.
  const controlRate = c.calls > 0 ? c.errors / c.calls : 0;
  const increase = (armRate - controlRate) * 100;
  if (increase <= guard.maxIncrease) return null;
  return {
    version: arm.version,
    guard,
    figures: {
      arm: { version: arm.version, calls: a.calls, errors: a.errors, errorRate: round(armRate) },
      control: { version: control.version, calls: c.calls, errors: c.errors, errorRate: c.calls > 0 ? round(controlRate) : null },
      increasePoints: round(increase, 4),
    },
    reason:
      `v${arm.version}'s error rate is ${increase.toFixed(1)} points above v${control.version}'s ` +
      `(${a.errors} errors in ${a.calls} calls, against ${c.errors} in ${c.calls}); the guard allows ${guard.maxIncrease}`,
  };
}

function feedbackTrip(
  arm: SplitArm,
  guard: Extract<SplitGuard, { metric: 'feedback' }>,
  counts: (version: number) => ArmCounts,
): Trip | null {
  const score = counts(arm.version).scores[guard.name];
  if (!score || score.n < guard.minCount) return null;
  const mean = score.sum / score.n;
  if (mean >= guard.min) return null;
  return {
    version: arm.version,
    guard,
    figures: { arm: { version: arm.version, name: guard.name, n: score.n, mean: round(mean) } },
    reason: `v${arm.version}'s mean "${guard.name}" is ${Number(mean.toPrecision(3))} over ${score.n} scores, below the guard's ${guard.min}`,
  };
}

/**
 * The split's weights once the tripped arms are stopped (0). Should that leave no weight at all
 * (the control itself at 0), the control gets weight 1, all the traffic, so the deployment still serves.
 */
export function weightsAfter(arms: SplitArm[], trips: Trip[]): Map<number, number> {
  const stopped = new Set(trips.map((trip) => trip.version));
  const weights = new Map(arms.map((arm) => [arm.version, stopped.has(arm.version) ? 0 : arm.weight]));
  if ([...weights.values()].every((weight) => weight === 0)) weights.set(arms[0].version, 1);
  return weights;
}
