import { Injectable } from '@nestjs/common';

import type { ProjectPrincipal } from '../../auth/principal';
import { ApiException } from '../../common/errors';
import type { WireLogFields } from '../../common/http/wire-request';
import { InvocationService } from '../../invocation/invocation.service';
import { ifArchived } from '../../registry/prompts/prompt-archived';
import { evalWireFields, runEnvironment } from '../eval-wire';
import { type Check, runCheck } from './checks';
import type { GradedOutput, GraderScore, GraderSpec } from './grader.schema';

/** An item as graders see it. */
export interface GradedItem {
  variables: Record<string, string>;
  messages: unknown[];
  expected: unknown;
}

/** Where a judge's call is logged: the environment usage counts it under, its metadata and its log's request fields. */
export interface GradingContext {
  environment: string;
  metadata: Record<string, string>;
  wire: WireLogFields;
  signal?: AbortSignal;
}

/** An experiment run's judges: logged under the run's environment with its items' calls, so usage shows the run's whole spend as one line. */
export const runGradingContext = (runId: string, signal?: AbortSignal): GradingContext => ({
  environment: runEnvironment(runId),
  metadata: { parley_eval_run: runId, parley_eval_role: 'judge' },
  wire: evalWireFields(runId),
  ...(signal ? { signal } : {}),
});

/**
 * One grader's result. `judged` is false when a model grader's judge could not be asked (not
 * deployed, its call failed): a run scores that 0, a live grader stores nothing.
 */
export interface GraderResult {
  score: number;
  reason: string;
  judged: boolean;
}

const REASON_MAX = 2000;

/** A result as runs store it: the score rounded to 6 decimals, passed at the grader's threshold, the reason bounded. */
export function scoreOf(grader: GraderSpec, result: { score: number; reason: string }): GraderScore {
  const rounded = Math.round(result.score * 1e6) / 1e6;
  return { grader: grader.name, score: rounded, passed: rounded >= grader.threshold, reason: result.reason.slice(0, REASON_MAX) };
}

const expectedText = (expected: unknown): string =>
  expected === undefined || expected === null ? '' : typeof expected === 'string' ? expected : JSON.stringify(expected);

/**
 * Scores one output with every grader of a run (docs/evals.md, "Graders"). A model grader is an
 * ordinary deployed Parley prompt: it is invoked through the invocation core as the run's caller,
 * with the variables `input`, `output` and `expected`, and logged like any call; its answer is a
 * label (scored by the grader's `labels`) or a number (divided by `maxScore`).
 */
@Injectable()
export class Grading {
  constructor(private readonly invocation: InvocationService) {}

  async grade(
    caller: ProjectPrincipal,
    graders: GraderSpec[],
    item: GradedItem,
    output: GradedOutput,
    context: GradingContext,
  ): Promise<GraderScore[]> {
    return Promise.all(graders.map(async (grader) => scoreOf(grader, await this.gradeOne(caller, grader, item, output, context))));
  }

  /** One grader's result, unrounded. */
  async gradeOne(
    caller: ProjectPrincipal,
    grader: GraderSpec,
    item: GradedItem,
    output: GradedOutput,
    context: GradingContext,
  ): Promise<GraderResult> {
    if (grader.config.type === 'model') return this.judge(caller, grader.config, item, output, context);
    return { ...runCheck(grader.config as Check, output, item.expected), judged: true };
  }

  private async judge(
    caller: ProjectPrincipal,
    config: Extract<GraderSpec['config'], { type: 'model' }>,
    item: GradedItem,
    output: GradedOutput,
    context: GradingContext,
  ): Promise<GraderResult> {
    const named = {
      type: 'deployment',
      slug: config.prompt,
      environment: config.environment,
      ...(config.version ? { version: config.version } : {}),
    } as const;
    const target = await ifArchived(this.invocation.resolve(caller, named), () => null);
    if (!target) return { score: 0, reason: `the judge ${config.prompt}@${config.environment} is not deployed`, judged: false };
    target.environment = context.environment;
    const variables = {
      input: JSON.stringify({ variables: item.variables, messages: item.messages }),
      output: output.text,
      expected: expectedText(item.expected),
    };
    let answer: string;
    try {
      const result = await this.invocation.invoke(
        caller,
        {
          target,
          messages: [],
          variables,
          overrides: {},
          thread: null,
          stream: false,
          doNotRecord: false,
          metadata: context.metadata,
          log: { requestData: { variables }, ...context.wire },
        },
        context.signal,
      );
      if (result.type !== 'completion') throw new Error('a judge call does not stream');
      const content = result.completion.choices[0]?.message?.content;
      answer = typeof content === 'string' ? content : '';
    } catch (err) {
      const message = err instanceof ApiException ? ((err.body as { message?: string }).message ?? err.message) : (err as Error).message;
      return { score: 0, reason: `the judge failed: ${message}`, judged: false };
    }
    return { ...scoreOfAnswer(answer, config), judged: true };
  }
}

/** The judge's answer as a score: its label (the first of the grader's labels it names) or its first number. */
export function scoreOfAnswer(
  answer: string,
  config: { labels?: Record<string, number>; maxScore: number },
): { score: number; reason: string } {
  const trimmed = answer.trim();
  if (config.labels) {
    const lower = trimmed.toLowerCase();
    const first = lower.split(/\s+/)[0]?.replace(/[^\p{L}\p{N}_-]/gu, '') ?? '';
    const labels = Object.keys(config.labels);
    const label =
      labels.find((name) => name.toLowerCase() === first) ??
      labels
        .map((name) => ({ name, at: lower.indexOf(name.toLowerCase()) }))
        .filter(({ at }) => at >= 0)
        .sort((a, b) => a.at - b.at)[0]?.name;
    if (label === undefined) return { score: 0, reason: `the judge named none of the labels: ${trimmed || '(empty)'}` };
    return { score: config.labels[label], reason: trimmed };
  }
  const match = /-?\d+(?:\.\d+)?/.exec(trimmed);
  if (!match) return { score: 0, reason: `the judge gave no score: ${trimmed || '(empty)'}` };
  return { score: Math.min(1, Math.max(0, Number(match[0]) / config.maxScore)), reason: trimmed };
}
