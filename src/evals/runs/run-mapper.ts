import type { GraderScore } from '../graders/grader.schema';
import type { CompareGraderDto, RunDto, RunItemDto } from './run.dto';
import { runEnvironment } from './run-target';
import type { GraderTotalRow, ItemInput, RunItemRow, RunRow } from './runs.repository';

const ratio = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 1e6) / 1e6 : null);

export function toRunDto(row: RunRow, totals: GraderTotalRow[]): RunDto {
  const completed = Number(row.completed_items);
  return {
    id: row.id,
    object: 'eval.run',
    name: row.name,
    status: row.status,
    dataset: { name: row.dataset_name, version: Number(row.dataset_version) },
    target: row.target as unknown as Record<string, unknown>,
    graders: row.graders.map((grader) => {
      const total = totals.find((t) => t.grader === grader.name);
      const graded = Number(total?.graded ?? 0);
      const passed = Number(total?.passed ?? 0);
      return {
        name: grader.name,
        type: grader.config.type,
        threshold: grader.threshold,
        graded,
        passed,
        meanScore: ratio(Number(total?.score_sum ?? 0), graded),
        passRate: ratio(passed, graded),
      };
    }),
    concurrency: Number(row.concurrency),
    progress: { total: Number(row.total_items), completed, errored: Number(row.errored_items), passed: Number(row.passed_items) },
    usage: {
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      costUsd: Number(row.cost_usd),
      meanLatencyMs: completed > 0 ? Math.round(Number(row.latency_ms_sum) / completed) : null,
    },
    logEnvironment: runEnvironment(row.id),
    error: row.error,
    metadata: row.metadata,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: row.started_at ? new Date(row.started_at).toISOString() : null,
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}

/** A stored item row, from a query or from `to_jsonb(row)` (where numbers may arrive as text). */
export function toRunItemDto(row: RunItemRow, input: ItemInput = row): RunItemDto {
  return {
    itemId: row.item_id,
    input: input.has_input
      ? { variables: input.input_variables ?? {}, messages: input.input_messages ?? [], expected: input.input_expected ?? null }
      : null,
    status: row.status,
    output: row.output as Record<string, unknown> | null,
    scores: row.scores as GraderScore[],
    passed: row.passed,
    score: Number(row.score),
    error: row.error,
    logId: row.log_id,
    promptTokens: row.prompt_tokens === null ? null : Number(row.prompt_tokens),
    completionTokens: row.completion_tokens === null ? null : Number(row.completion_tokens),
    costUsd: row.cost_usd === null ? null : Number(row.cost_usd),
    latencyMs: Number(row.latency_ms),
  };
}

export function compareGraders(base: RunDto, candidate: RunDto): CompareGraderDto[] {
  const names = [...new Set([...base.graders.map((g) => g.name), ...candidate.graders.map((g) => g.name)])];
  return names.map((name) => {
    const b = base.graders.find((g) => g.name === name);
    const c = candidate.graders.find((g) => g.name === name);
    return {
      name,
      baseMean: b?.meanScore ?? null,
      candidateMean: c?.meanScore ?? null,
      basePassRate: b?.passRate ?? null,
      candidatePassRate: c?.passRate ?? null,
    };
  });
}
