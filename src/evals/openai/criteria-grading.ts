import { Injectable } from '@nestjs/common';

import type { ProjectPrincipal } from '../../auth/principal';
import type { ChatMessage } from '../../common/chat';
import { ApiException } from '../../common/errors';
import { InvocationService } from '../../invocation/invocation.service';
import type { RequestOverrides } from '../../invocation/invocation.types';
import type { GradedOutput, GraderConfig, GraderScore, GraderSpec } from '../graders/grader.schema';
import { type GradedItem, Grading, type GradingContext } from '../graders/grading';
import {
  chatRole,
  Criterion,
  CriterionResult,
  gradeDeterministic,
  judgedResult,
  messageText,
  ModelCriterion,
  renderTemplate,
  scoreScale,
  TemplateContext,
} from './criteria';
import { targetOfModelName } from './criteria-check';

/** An OpenAI testing criterion as one of a run's graders: `config.type` "openai", graded here (not a /v2 grader type). */
interface CriterionConfig {
  type: 'openai';
  criterion: Criterion;
}

/** The line of the data source an OpenAI run's dataset item was made of; kept as the item's `expected`. */
export interface SourceRowValue {
  item: Record<string, unknown>;
  sample?: Record<string, unknown>;
}

/** The grader a run copies for a criterion: named by the criterion's id; `threshold` is the pass mark scaled to [0, 1], for /v2's listing. */
export function criterionSpec(criterion: Criterion): GraderSpec {
  let threshold = 1;
  if (criterion.type === 'text_similarity') threshold = criterion.pass_threshold;
  if (criterion.type === 'score_model') {
    const { min, max, passAt } = scoreScale(criterion);
    threshold = Math.min(1, Math.max(0, (passAt - min) / (max - min)));
  }
  const config: CriterionConfig = { type: 'openai', criterion };
  return { name: criterion.id, threshold, config: config as unknown as GraderConfig };
}

const criterionOf = (spec: GraderSpec): Criterion | null =>
  (spec.config as { type: string }).type === 'openai' ? (spec.config as unknown as CriterionConfig).criterion : null;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The `sample` namespace: the graded output (its text, its JSON, its tool calls), and the fields of a sample given in a jsonl run. */
export function sampleNamespace(output: GradedOutput, given?: Record<string, unknown>): Record<string, unknown> {
  return {
    output_text: output.text,
    output_json: parsedJson(output.text),
    output_tools: output.toolCalls.map((call) => ({ type: 'function', function: { name: call.name, arguments: call.arguments } })),
    finish_reason: output.finishReason,
    ...(given ?? {}),
  };
}

/** What a score_model's sampling_params set on the judge's call. */
function judgeOverrides(criterion: ModelCriterion): RequestOverrides {
  if (criterion.type !== 'score_model' || !criterion.sampling_params) return {};
  const { max_completions_tokens, reasoning_effort, seed, temperature, top_p } = criterion.sampling_params;
  const overrides: RequestOverrides = {};
  if (max_completions_tokens != null) overrides.max_completion_tokens = max_completions_tokens;
  if (reasoning_effort != null) overrides.reasoning_effort = reasoning_effort as RequestOverrides['reasoning_effort'];
  if (seed != null) overrides.seed = seed;
  if (temperature != null) overrides.temperature = temperature;
  if (top_p != null) overrides.top_p = top_p;
  return overrides;
}

function failureText(err: unknown): string {
  if (!(err instanceof ApiException)) return (err as Error).message ?? String(err);
  const body = err.body as { message?: unknown; error?: unknown };
  const inner = isObject(body.error) ? body.error.message : body.error;
  return typeof body.message === 'string' ? body.message : typeof inner === 'string' ? inner : err.message;
}

/**
 * The run's grading, with OpenAI's testing criteria besides Parley's graders (docs/evals.md,
 * "OpenAI's Evals API"). Provided as `Grading` in EvalsModule, so experiment runs grade their items
 * with it wherever they run; a grader of any other type is graded by Grading, as before.
 * `string_check` and `text_similarity` are computed (criteria.ts); a `label_model` or `score_model`
 * renders its input messages over the item and the sample and calls its model (a deployed prompt,
 * or `provider/model`) through the invocation core as the run's caller, logged under the run's
 * environment like a model grader's judge.
 */
@Injectable()
export class OpenAICriteriaGrading extends Grading {
  constructor(private readonly calls: InvocationService) {
    super(calls);
  }

  override async grade(
    caller: ProjectPrincipal,
    graders: GraderSpec[],
    item: GradedItem,
    output: GradedOutput,
    context: GradingContext,
  ): Promise<GraderScore[]> {
    if (!graders.some((grader) => criterionOf(grader))) return super.grade(caller, graders, item, output, context);
    const row: SourceRowValue = isObject(item.expected) && isObject(item.expected.item) ? (item.expected as never) : { item: {} };
    const namespaces: TemplateContext = { item: row.item, sample: sampleNamespace(output, isObject(row.sample) ? row.sample : undefined) };
    return Promise.all(
      graders.map(async (grader) => {
        const criterion = criterionOf(grader);
        if (!criterion) return (await super.grade(caller, [grader], item, output, context))[0];
        const result =
          criterion.type === 'string_check' || criterion.type === 'text_similarity'
            ? gradeDeterministic(criterion, namespaces)
            : await this.callJudge(caller, criterion, namespaces, context);
        return { grader: grader.name, score: result.score, passed: result.passed, reason: result.reason.slice(0, 2000) };
      }),
    );
  }

  private async callJudge(
    caller: ProjectPrincipal,
    criterion: ModelCriterion,
    namespaces: TemplateContext,
    context: GradingContext,
  ): Promise<CriterionResult> {
    const failed = (reason: string): CriterionResult => ({ score: 0, passed: false, reason });
    const named = targetOfModelName(criterion.model);
    let target;
    try {
      target = named ? await this.calls.resolve(caller, named) : null;
    } catch (err) {
      return failed(`the judge ${criterion.model} cannot be called: ${failureText(err)}`);
    }
    if (!target) return failed(`the judge ${criterion.model} is not deployed, or is no provider of this project`);
    // Logged where the context says (a run's judges: under its environment), as a model grader's judge.
    target.environment = context.environment;
    const messages: ChatMessage[] = criterion.input.map((message) => ({
      role: chatRole(message.role),
      content: renderTemplate(messageText(message.content) ?? '', namespaces),
    }));
    try {
      const result = await this.calls.invoke(
        caller,
        {
          target,
          messages,
          variables: {},
          overrides: judgeOverrides(criterion),
          thread: null,
          stream: false,
          doNotRecord: false,
          metadata: context.metadata,
          log: { requestData: { messages }, ...context.wire },
        },
        // A signal of its own that follows the run's: the judges' calls add no abort listener to the run's signal.
        context.signal ? AbortSignal.any([context.signal]) : undefined,
      );
      if (result.type !== 'completion') throw new Error('a judge call does not stream');
      const content = result.completion.choices[0]?.message?.content;
      return judgedResult(criterion, typeof content === 'string' ? content : '');
    } catch (err) {
      return failed(`the judge failed: ${failureText(err)}`);
    }
  }
}
