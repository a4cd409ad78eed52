import type { CompareDto, RunDto } from '../../evals/runs/run.dto';

/** A `--min-score grader=score`: the mean score the run's grader must reach (as a deploy gate's minScores). */
export interface MinScore {
  grader: string;
  min: number;
}

export interface MinScoreResult extends MinScore {
  mean: number | null;
  met: boolean;
}

/** What `parley eval run` decides from a finished run (docs/evals.md, "For CI"); `--json` prints it. */
export interface EvalOutcome {
  run: RunDto;
  /** The run compared with, and how it was chosen; null without --baseline (or when auto found none). */
  baseline: { id: string; name: string; chosen: 'given' | 'auto' } | null;
  comparison: { counts: CompareDto['counts']; regressed: { itemId: string; base: number; candidate: number }[] } | null;
  minScores: MinScoreResult[];
  /** Why the run does not pass; empty when it passes. */
  reasons: string[];
  passed: boolean;
}

const score = (value: number | null) => (value === null ? '-' : value.toFixed(3));
const percent = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Columns padded to their widest cell. */
export function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * The decision (docs/evals.md, "For CI"): a run passes when it completed, every `--min-score`
 * grader's mean score reaches its minimum, and, with a baseline, no item regressed against it
 * (an item regresses when the mean of its graders' scores is lower than in the baseline run).
 */
export function decide(
  run: RunDto,
  minScores: MinScore[],
  baseline: EvalOutcome['baseline'],
  comparison: EvalOutcome['comparison'],
): EvalOutcome {
  const reasons: string[] = [];
  if (run.status !== 'completed') reasons.push(`the run ended ${run.status}${run.error ? `: ${run.error}` : ''}`);
  const results = minScores.map(({ grader, min }) => {
    const mean = run.graders.find((g) => g.name === grader)?.meanScore ?? null;
    const met = mean !== null && !(mean < min);
    if (mean === null) reasons.push(`grader "${grader}": no item was graded, so the minimum ${min} is not met`);
    else if (!met) reasons.push(`grader "${grader}": mean score ${score(mean)} is below the minimum ${min}`);
    return { grader, min, mean, met };
  });
  if (baseline && comparison && comparison.counts.regressed > 0)
    reasons.push(`${plural(comparison.counts.regressed, 'item')} regressed against run ${baseline.id}`);
  return { run, baseline, comparison, minScores: results, reasons, passed: reasons.length === 0 };
}

/** The human report, on standard output. */
export function describeOutcome(outcome: EvalOutcome): string {
  const { run, baseline, comparison, minScores } = outcome;
  const target = run.target as { type?: string; prompt?: string | null; version?: number };
  const what = target.type === 'version' ? `${target.prompt} v${target.version}` : `a draft of ${target.prompt ?? 'a prompt'}`;
  const header = ['grader', 'type', 'threshold', 'mean', 'pass rate', 'passed', ...(minScores.length ? ['min score', 'result'] : [])];
  const rows = run.graders.map((g) => {
    const min = minScores.find((m) => m.grader === g.name);
    const gate = minScores.length ? [min ? String(min.min) : '', min ? (min.met ? 'met' : 'NOT MET') : ''] : [];
    return [g.name, g.type, String(g.threshold), score(g.meanScore), percent(g.passRate), `${g.passed}/${g.graded}`, ...gate];
  });
  const { progress, usage } = run;
  const lines = [
    `Run ${run.id} "${run.name}": ${run.status}`,
    `  ${what} on dataset ${run.dataset.name} v${run.dataset.version}`,
    '',
    ...table([header, ...rows]).map((line) => `  ${line}`),
    '',
    `Items: ${progress.total} total, ${progress.completed} completed, ${progress.errored} errored, ${progress.passed} passed every grader`,
    `Cost: $${usage.costUsd.toFixed(6)} (${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens)` +
      (usage.meanLatencyMs === null ? '' : `, mean latency ${usage.meanLatencyMs} ms`),
  ];
  if (baseline && comparison) {
    const c = comparison.counts;
    lines.push(
      `Baseline: run ${baseline.id} "${baseline.name}"${baseline.chosen === 'auto' ? ' (auto)' : ''}: ` +
        `${c.improved} improved, ${c.regressed} regressed, ${c.unchanged} unchanged` +
        (c.onlyInBase || c.onlyInCandidate ? ` (${c.onlyInBase} only in the baseline, ${c.onlyInCandidate} only in this run)` : ''),
    );
    for (const item of comparison.regressed)
      lines.push(`  regressed: item ${item.itemId}  ${score(item.base)} -> ${score(item.candidate)}`);
    if (c.regressed > comparison.regressed.length) lines.push(`  … and ${c.regressed - comparison.regressed.length} more`);
  } else {
    lines.push('Baseline: none');
  }
  lines.push(outcome.passed ? 'Result: PASS' : 'Result: FAIL', ...outcome.reasons.map((reason) => `  - ${reason}`));
  return lines.join('\n');
}
