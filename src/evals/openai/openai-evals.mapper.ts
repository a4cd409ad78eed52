import type { RequestLogEntity } from '../../request-logs/request-log.entity';
import type { RunDto } from '../runs/run.dto';
import type { RunStatus } from '../runs/runs.repository';
import { type Criterion, reportedScore } from './criteria';
import type { SourceRowValue } from './criteria-grading';
import type { EvalRow, EvalRunRow, OutputItemRow } from './openai-evals.repository';

/**
 * Parley's evaluations in the shapes of OpenAI's Evals API (the `openai` SDK's EvalCreateResponse,
 * RunCreateResponse, OutputItemRetrieveResponse): ids with OpenAI's prefixes, Unix seconds.
 */

const seconds = (at: Date | string) => Math.floor(new Date(at).getTime() / 1000);
const hex = (uuid: string) => uuid.replace(/-/g, '');
const uuidOf = (hex32: string) =>
  `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20)}`;

export const evalIdOf = (uuid: string) => `eval_${hex(uuid)}`;
export const evalRunIdOf = (uuid: string) => `evalrun_${hex(uuid)}`;
export const outputItemIdOf = (itemId: string) => `outputitem_${hex(itemId)}`;

const ID = { eval: /^eval_[0-9a-f]{32}$/, run: /^evalrun_[0-9a-f]{32}$/, item: /^outputitem_([0-9a-f]{32})$/ };
export const isEvalId = (id: string) => ID.eval.test(id);
export const isEvalRunId = (id: string) => ID.run.test(id);
/** The dataset item an output item id names, or null when it is no output item id. */
export const itemIdOfOutputItem = (id: string): string | null => {
  const match = ID.item.exec(id);
  return match ? uuidOf(match[1]) : null;
};

/** The `sample` namespace's schema, shown in a data source config that includes it. */
const SAMPLE_SCHEMA = {
  type: 'object',
  properties: {
    output_text: { type: 'string' },
    output_json: { type: 'object' },
    output_tools: { type: 'array', items: { type: 'object' } },
    finish_reason: { type: 'string' },
    model: { type: 'string' },
  },
  required: ['output_text'],
};

export function toEval(row: EvalRow) {
  const { item_schema, include_sample_schema } = row.data_source_config;
  return {
    object: 'eval' as const,
    id: row.id,
    name: row.name,
    created_at: seconds(row.created_at),
    metadata: row.metadata,
    data_source_config: {
      type: 'custom' as const,
      schema: {
        type: 'object',
        properties: { item: item_schema, ...(include_sample_schema ? { sample: SAMPLE_SCHEMA } : {}) },
        required: include_sample_schema ? ['item', 'sample'] : ['item'],
      },
    },
    testing_criteria: row.testing_criteria,
  };
}

const STATUS: Record<RunStatus, string> = {
  queued: 'queued',
  running: 'in_progress',
  completed: 'completed',
  cancelled: 'canceled',
  failed: 'failed',
};
/** OpenAI's run status as Parley's experiment run status. */
export const runStatusOf = (status: string): RunStatus | null =>
  (Object.entries(STATUS).find(([, openai]) => openai === status)?.[0] as RunStatus | undefined) ?? null;

export function toRun(link: EvalRunRow, run: RunDto) {
  const { completed, errored, passed } = run.progress;
  const isJsonl = link.data_source.type === 'jsonl';
  return {
    object: 'eval.run' as const,
    id: link.id,
    eval_id: link.eval_id,
    name: run.name,
    status: STATUS[run.status as RunStatus] ?? run.status,
    model: link.model,
    created_at: seconds(link.created_at),
    data_source: link.data_source,
    metadata: link.metadata,
    result_counts: { total: completed, errored, failed: completed - errored - passed, passed },
    per_testing_criteria_results: run.graders.map((grader) => ({
      testing_criteria: grader.name,
      passed: grader.passed,
      failed: grader.graded - grader.passed,
    })),
    // The items' calls; a jsonl run called no model (its samples were given), and judges are logged on their own.
    per_model_usage:
      isJsonl || completed === 0
        ? []
        : [
            {
              model_name: link.model,
              invocation_count: completed,
              prompt_tokens: run.usage.promptTokens,
              completion_tokens: run.usage.completionTokens,
              total_tokens: run.usage.promptTokens + run.usage.completionTokens,
              cached_tokens: 0,
            },
          ],
    report_url: `/console/evals/runs/${run.id}`,
    error: run.error === null ? null : { code: 'run_failed', message: run.error },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const numberOr = (value: unknown, fallback: number | null = null) => (typeof value === 'number' ? value : fallback);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('\n');
}

/** The sample of a completions run's item: what its call sent (from its request log) and answered. */
function calledSample(row: OutputItemRow, log: RequestLogEntity | null, runModel: string | null) {
  const request = log?.providerRequest ?? {};
  const sent = Array.isArray(request.messages) ? (request.messages as unknown[]) : [];
  const prompt = Number(row.prompt_tokens ?? 0);
  const completion = Number(row.completion_tokens ?? 0);
  return {
    input: sent.filter(isObject).map((message) => ({ role: String(message.role), content: textOf(message.content) })),
    output: row.output ? [{ role: 'assistant', content: row.output.text }] : [],
    finish_reason: row.output?.finishReason ?? null,
    model: log?.model ?? runModel,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      cached_tokens: Number(log?.cacheReadTokens ?? 0),
    },
    error: row.status === 'error' ? { code: 'invocation_failed', message: row.error ?? '' } : null,
    temperature: numberOr(request.temperature),
    max_completion_tokens: numberOr(request.max_completion_tokens, numberOr(request.max_tokens)),
    top_p: numberOr(request.top_p),
    seed: numberOr(request.seed),
  };
}

/** The sample of a jsonl run's item: the one given (no call was made). */
function givenSample(sample: Record<string, unknown>) {
  const input = Array.isArray(sample.input) ? sample.input.filter(isObject) : [];
  return {
    input: input.map((message) => ({ role: String(message.role ?? 'user'), content: textOf(message.content) })),
    output: [{ role: 'assistant', content: String(sample.output_text) }],
    finish_reason: typeof sample.finish_reason === 'string' ? sample.finish_reason : null,
    model: typeof sample.model === 'string' ? sample.model : null,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0 },
    error: null,
    temperature: numberOr(sample.temperature),
    max_completion_tokens: numberOr(sample.max_completion_tokens),
    top_p: numberOr(sample.top_p),
    seed: numberOr(sample.seed),
  };
}

export function toOutputItem(link: EvalRunRow, criteria: Criterion[], row: OutputItemRow, log: RequestLogEntity | null) {
  const source = (isObject(row.expected) ? row.expected : {}) as Partial<SourceRowValue>;
  const isJsonl = link.data_source.type === 'jsonl';
  return {
    object: 'eval.run.output_item' as const,
    id: outputItemIdOf(row.item_id),
    run_id: link.id,
    eval_id: link.eval_id,
    created_at: seconds(row.created_at),
    status: row.status === 'error' ? 'error' : row.passed ? 'pass' : 'fail',
    datasource_item_id: numberOr(row.metadata?.datasource_item_id, -1),
    datasource_item: source.item ?? {},
    results: row.scores.map((score) => {
      const criterion = criteria.find((c) => c.id === score.grader);
      return {
        name: score.grader,
        type: criterion?.type ?? null,
        score: reportedScore(criterion, score.score),
        passed: score.passed,
        sample: null,
        reason: score.reason,
      };
    }),
    sample: isJsonl ? (source.sample ? givenSample(source.sample) : null) : calledSample(row, log, link.model),
  };
}

export function listOf<T extends { id: string }>(data: T[], hasMore: boolean) {
  return { object: 'list' as const, data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore };
}
