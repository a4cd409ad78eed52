import { z } from 'zod';

import { expects } from '../../common/chat';
import { SLUG_PATTERN } from '../../common/validation/slug';

/**
 * Guards of a split (docs/experiments.md, "Guards"): bounds on each non-control arm's figures that,
 * once crossed, stop the arm (its weight set to 0). Stored with the deployment; the experiments
 * module checks them.
 */

export const MAX_GUARDS = 10;
const COUNT_LIMIT = 1_000_000_000;
const POINTS = 'percentage points from 0 to 100';
const GUARD_SHAPES = 'a guard: {"metric": "error_rate", "maxIncrease", "minCalls"?} or {"metric": "feedback", "name", "min", "minCount"?}';

/** The arm's error rate minus the control's, in percentage points, may not pass `maxIncrease` once the arm has `minCalls` calls. */
const errorRateGuard = z.strictObject({
  metric: z.literal('error_rate'),
  maxIncrease: z.number(expects(POINTS)).min(0, expects(POINTS)).max(100, expects(POINTS)),
  minCalls: z.number().int().min(1).max(COUNT_LIMIT).default(100),
});

/** The arm's mean of feedback `name` may not fall below `min` once it has `minCount` scores. */
const feedbackGuard = z.strictObject({
  metric: z.literal('feedback'),
  name: z
    .string(expects('a feedback name'))
    .regex(SLUG_PATTERN, expects('a feedback name: 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit')),
  min: z.number(expects('a number')).min(-COUNT_LIMIT).max(COUNT_LIMIT),
  minCount: z.number().int().min(1).max(COUNT_LIMIT).default(30),
});

export const guardSchema = z.discriminatedUnion('metric', [errorRateGuard, feedbackGuard], expects(GUARD_SHAPES));

export const guardsSchema = z.array(guardSchema).max(MAX_GUARDS, expects(`at most ${MAX_GUARDS} guards`));

export type ErrorRateGuard = z.output<typeof errorRateGuard>;
export type FeedbackGuard = z.output<typeof feedbackGuard>;
export type SplitGuard = z.output<typeof guardSchema>;

/** Guards as stored: defaults filled in, none as null (an empty list guards nothing). */
export function storedGuards(guards: unknown): SplitGuard[] | null {
  if (guards === undefined || guards === null) return null;
  const parsed = guardsSchema.parse(guards);
  return parsed.length > 0 ? parsed : null;
}
