import { createHash } from 'node:crypto';

import { z } from 'zod';

import { expects } from '../common/chat';
import { SLUG_PATTERN } from '../common/validation/slug';

/**
 * Live graders (docs/experiments.md, "Live graders"): the project setting naming the graders that
 * score a share of the project's deployed calls, and the sampling rule the invocation core applies
 * to each call once its log is stored.
 */

export const MAX_LIVE_GRADERS = 20;

const slug = (what: string) => z.string(expects(what)).regex(SLUG_PATTERN, expects(`${what}: 1-64 lower-case letters, digits, "-" or "_"`));

export const liveGradersSchema = z
  .array(
    z.strictObject({
      grader: slug('a grader name'),
      share: z.number(expects('a share')).gt(0, expects('a share above 0')).max(1, expects('a share of at most 1')),
      prompt: slug('a prompt slug').optional(),
      environment: slug('an environment slug').optional(),
    }),
    expects('a list of live graders'),
  )
  .max(MAX_LIVE_GRADERS, expects(`at most ${MAX_LIVE_GRADERS} live graders`));

export type LiveGrader = z.output<typeof liveGradersSchema>[number];

/**
 * Why a grader cannot score live calls, or null. A live call has no expected output (no dataset
 * item), so a check that would compare with it (`equals`, `contains`, `json_path` without a value
 * of their own) could only fail; a model grader's judge gets `expected` empty. Read from the stored
 * row (`type`, `config` as JSON): the graders' own schema sits in evals/, above this folder.
 */
export function liveGraderProblem(name: string, type: string, config: Record<string, unknown>): string | null {
  const needsExpected = (field: string) =>
    `"${name}" is ${type === 'equals' ? 'an' : 'a'} ${type} grader without a \`${field}\` of its own: it compares with a dataset item's expected output, which a live call does not have`;
  switch (type) {
    case 'equals':
      return config.value === undefined || config.value === null ? needsExpected('value') : null;
    case 'contains':
      return config.values === undefined || config.values === null ? needsExpected('values') : null;
    case 'json_path':
      return config.value === undefined || config.value === null ? needsExpected('value') : null;
    case 'regex':
    case 'json_schema':
    case 'tool_call':
    case 'latency':
    case 'cost':
    case 'model':
      return null;
    default:
      return `"${name}" is a grader of type ${type}, which cannot grade live calls`;
  }
}

/**
 * A call's point in [0, 1): the SHA-256 of its request log's id, read as a number (as a split's
 * sticky point is: docs/experiments.md, "How an arm is chosen"). The same log always has the same
 * point, on every instance, so a call is sampled once whatever happens to it afterwards.
 */
export function samplePoint(logId: string): number {
  return createHash('sha256').update(logId, 'utf8').digest().readUIntBE(0, 6) / 2 ** 48;
}

/**
 * The graders that score one call: those of the entries matching its prompt and environment (an
 * entry without one matches any) whose share is above the call's point, each once, in the entries'
 * order. One point per call for every entry: a grader with a smaller share scores a subset of the
 * calls a larger share scores, so two graders' scores can be compared on the same calls. `pointOf`
 * is asked only when an entry matches: no hash for a call no entry names.
 */
export function sampledGraders(
  entries: readonly LiveGrader[],
  call: { prompt: string; environment: string },
  pointOf: () => number,
): string[] {
  let point: number | undefined;
  const graders: string[] = [];
  for (const entry of entries) {
    if (entry.prompt !== undefined && entry.prompt !== call.prompt) continue;
    if (entry.environment !== undefined && entry.environment !== call.environment) continue;
    point ??= pointOf();
    if (point < entry.share && !graders.includes(entry.grader)) graders.push(entry.grader);
  }
  return graders;
}

/**
 * A `live_grade` job's request (the job's id is the graded call's log id): the graders sampled for
 * it, and the project's names, which its judges' calls are made and counted under (the project acts
 * for itself: no key).
 */
export interface LiveGradeRequest {
  graders: string[];
  workspaceId: string;
  workspaceSlug: string;
  projectSlug: string;
}
