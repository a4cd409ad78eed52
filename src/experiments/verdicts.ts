/**
 * The verdicts of an experiment's results (docs/experiments.md, "Per-arm results"): each arm other
 * than the control against the control, on the error rate (lower is better) and on each feedback
 * score both arms have values of (higher is better), through the 95 % interval of their difference
 * (compareArms: Newcombe's for shares, Welch's for means). A sentence only when that interval
 * excludes 0; otherwise no verdict, and the reason says so.
 */
import { ArmValues, compareArms } from '../feedback/statistics';
import type { VerdictDto } from './experiment-results.dto';

export const NOT_ENOUGH_EVIDENCE = 'not enough evidence yet';

/** A feedback score of one arm as its rollup sums it; `booleans`: every value is true or false. */
export interface ScoreValues extends ArmValues {
  name: string;
}

/** What the verdicts read of one arm. */
export interface VerdictArm {
  version: number;
  calls: number;
  errors: number;
  scores: ScoreValues[];
}

/** Every verdict of the non-control arms, in their order: the error rate first, then the scores by name. */
export function verdictsOf(control: VerdictArm, others: VerdictArm[]): VerdictDto[] {
  return others.flatMap((arm) => {
    const rate = (a: VerdictArm): ArmValues => ({ n: a.calls, sum: a.errors, sumSquares: a.errors, booleans: true });
    const verdicts = [verdict(arm.version, control.version, null, rate(arm), rate(control))];
    const controlScores = new Map(control.scores.filter((s) => s.n > 0).map((s) => [s.name, s]));
    const shared = arm.scores.filter((s) => s.n > 0 && controlScores.has(s.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const score of shared) {
      const other = controlScores.get(score.name)!;
      // Booleans on one side and numbers on the other: both are compared as numbers (true = 1, false = 0).
      const booleans = score.booleans && other.booleans;
      verdicts.push(verdict(arm.version, control.version, score.name, { ...score, booleans }, { ...other, booleans }));
    }
    return verdicts;
  });
}

function verdict(version: number, control: number, name: string | null, arm: ArmValues, base: ArmValues): VerdictDto {
  const higherIsBetter = name !== null;
  const { difference, verdict: better } = compareArms(arm, base, { higherIsBetter });
  const common = {
    version,
    control,
    metric: name === null ? 'error_rate' : 'feedback',
    name,
    better: higherIsBetter ? 'higher' : 'lower',
  } as const;
  const interval = difference && { estimate: difference.estimate, low: difference.low, high: difference.high };
  if (!difference || !better) return { ...common, difference: interval, winner: null, verdict: null, reason: NOT_ENOUGH_EVIDENCE };
  return {
    ...common,
    difference: interval,
    winner: better === 'a' ? version : control,
    verdict: sentence(version, control, name, arm.booleans, difference),
    reason: null,
  };
}

/** "v8's error rate is higher than v7's: +2.1 points (95 % interval +0.4 to +3.8)". */
export function sentence(
  version: number,
  control: number,
  name: string | null,
  share: boolean,
  difference: { estimate: number; low: number; high: number },
): string {
  const what = name === null ? 'error rate' : share ? `"${name}" rate` : `mean "${name}"`;
  const way = difference.estimate > 0 ? 'higher' : 'lower';
  const values = [difference.estimate, difference.low, difference.high].map((x) => (share ? x * 100 : x));
  const [estimate, low, high] = share ? points(values) : significant(values);
  return `v${version}'s ${what} is ${way} than v${control}'s: ${estimate}${share ? ' points' : ''} (95 % interval ${low} to ${high})`;
}

const signed = (text: string) => (text.startsWith('-') ? text : `+${text}`);

/** Percentage points: one decimal, two below one point. */
function points(values: number[]): string[] {
  const places = Math.max(...values.map(Math.abs)) < 1 ? 2 : 1;
  return values.map((x) => signed(x.toFixed(places)));
}

/** Three significant digits of the largest, the same places for all. */
function significant(values: number[]): string[] {
  const largest = Math.max(...values.map(Math.abs));
  const places = largest === 0 ? 2 : Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(largest))));
  return values.map((x) => signed(x.toFixed(places)));
}
