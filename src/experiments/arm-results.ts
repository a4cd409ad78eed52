import { toSummaryRow } from '../feedback/feedback.service';
import type { RollupRow } from '../feedback/feedback-rollups';
import { wilsonInterval } from '../feedback/statistics';
import type { SplitArm } from '../registry/deployments/split';
import { LATENCY_BUCKETS } from '../request-logs/usage-rollups';
import { latencyPercentile } from '../usage/latency-percentiles';
import { divideDecimal } from '../usage/pricing/decimal';
import type { UsageSums } from '../usage/usage.repository';
import type { ArmResultDto } from './experiment-results.dto';
import type { ScoreValues, VerdictArm } from './verdicts';

/** An arm that had no call in the window: zeros, no latency. */
export const NO_USAGE: UsageSums = {
  calls: 0,
  errors: 0,
  partialCalls: 0,
  unpricedCalls: 0,
  uncachedInput: 0,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  output: 0,
  costUsd: '0',
  latency: new Array<number>(LATENCY_BUCKETS).fill(0),
};

/** What is known of an arm besides its sums: its place in the split and whether its figures reach before the deployment. */
export interface ArmContext {
  arm: SplitArm;
  control: boolean;
  firstHourShared: boolean;
  servedBefore: boolean;
}

/** One arm's results from its usage sums and its feedback rollups (docs/experiments.md, "Per-arm results"). */
export function armResult(context: ArmContext, usage: UsageSums, feedback: RollupRow[]): ArmResultDto {
  const { calls, errors, unpricedCalls } = usage;
  const input = usage.uncachedInput + usage.cacheRead + usage.cacheWrite;
  const output = usage.output + usage.reasoning;
  const priced = calls - unpricedCalls;
  return {
    version: context.arm.version,
    weight: context.arm.weight,
    control: context.control,
    calls,
    errors,
    errorRate: calls > 0 ? errors / calls : null,
    errorRateInterval: calls > 0 ? { ...wilsonInterval(errors, calls), method: 'wilson' } : null,
    latencyMs: { p50: latencyPercentile(usage.latency, 0.5), p95: latencyPercentile(usage.latency, 0.95) },
    tokens: { input, output, total: input + output },
    costUsd: usage.costUsd,
    costPerCallUsd: priced > 0 ? divideDecimal(usage.costUsd, priced) : null,
    unpricedCalls,
    feedback: feedback.map((row) => {
      const { name, kind, count, n, mean, interval, categories } = toSummaryRow(row);
      return { name, kind, count, n, mean, interval, categories };
    }),
    firstHourShared: context.firstHourShared,
    servedBefore: context.servedBefore,
  };
}

/** What the verdicts compare of an arm: its calls and errors, and its scored feedback. */
export function verdictArm(version: number, usage: UsageSums, feedback: RollupRow[]): VerdictArm {
  const scores: ScoreValues[] = feedback.map((row) => ({
    name: row.name,
    n: row.numbers + row.booleans,
    sum: Number(row.value_sum),
    sumSquares: Number(row.value_sum_squares),
    booleans: row.numbers === 0,
  }));
  return { version, calls: usage.calls, errors: usage.errors, scores };
}
