import type { RunDto } from '../../evals/runs/run.dto';
import { parseMinScores, parseTarget } from './eval.command';
import { decide, describeOutcome } from './eval-report';

const grader = (name: string, meanScore: number | null) => ({
  name,
  type: 'equals',
  threshold: 1,
  graded: meanScore === null ? 0 : 4,
  passed: meanScore === null ? 0 : Math.round(meanScore * 4),
  meanScore,
  passRate: meanScore,
});

const run = (status: string, graders: RunDto['graders']): RunDto => ({
  id: 'r1',
  object: 'eval.run',
  name: 'city v2 on cities v1',
  status,
  dataset: { name: 'cities', version: 1 },
  target: { type: 'version', prompt: 'city', version: 2 },
  graders,
  concurrency: 8,
  progress: { total: 4, completed: 4, errored: 0, passed: 3 },
  usage: { promptTokens: 4, completionTokens: 4, costUsd: 0.00012, meanLatencyMs: 5 },
  logEnvironment: 'eval-r1',
  error: status === 'failed' ? 'stopped by the limits' : null,
  metadata: {},
  createdAt: '',
  startedAt: null,
  finishedAt: null,
});

describe('parley eval run: the decision and its report', () => {
  it('passes when every minimum is reached (equal counts) and nothing regressed', () => {
    const outcome = decide(run('completed', [grader('exact', 0.75), grader('polite', 1)]), [{ grader: 'exact', min: 0.75 }], null, null);
    expect(outcome).toMatchObject({ passed: true, reasons: [], minScores: [{ grader: 'exact', min: 0.75, mean: 0.75, met: true }] });
    expect(describeOutcome(outcome).split('\n')).toEqual([
      'Run r1 "city v2 on cities v1": completed',
      '  city v2 on dataset cities v1',
      '',
      '  grader  type    threshold  mean   pass rate  passed  min score  result',
      '  exact   equals  1          0.750  75.0%      3/4     0.75       met',
      '  polite  equals  1          1.000  100.0%     4/4',
      '',
      'Items: 4 total, 4 completed, 0 errored, 3 passed every grader',
      'Cost: $0.000120 (4 prompt + 4 completion tokens), mean latency 5 ms',
      'Baseline: none',
      'Result: PASS',
    ]);
  });

  it('fails on a minimum not met, a grader that graded nothing, a regressed item or a run that did not complete', () => {
    const counts = { improved: 0, regressed: 2, unchanged: 2, onlyInBase: 0, onlyInCandidate: 0 };
    const outcome = decide(
      run('completed', [grader('exact', 0.5), grader('polite', null)]),
      [
        { grader: 'exact', min: 0.8 },
        { grader: 'polite', min: 0.1 },
      ],
      { id: 'b1', name: 'city v1', chosen: 'auto' },
      { counts, regressed: [{ itemId: 'i1', base: 1, candidate: 0.5 }] },
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.reasons).toEqual([
      'grader "exact": mean score 0.500 is below the minimum 0.8',
      'grader "polite": no item was graded, so the minimum 0.1 is not met',
      '2 items regressed against run b1',
    ]);
    expect(describeOutcome(outcome)).toContain(
      'Baseline: run b1 "city v1" (auto): 0 improved, 2 regressed, 2 unchanged\n  regressed: item i1  1.000 -> 0.500\n  … and 1 more\nResult: FAIL',
    );
    expect(decide(run('failed', []), [], null, null).reasons).toEqual(['the run ended failed: stopped by the limits']);
  });

  it('reads targets and minimum scores', () => {
    expect(parseTarget('city@12')).toEqual({ prompt: 'city', version: 12 });
    expect(parseTarget('city@production')).toEqual({ prompt: 'city', environment: 'production' });
    expect(() => parseTarget('city@./missing.yaml')).toThrow(/cannot read the draft file \.\/missing\.yaml/);
    expect(() => parseTarget('@1')).toThrow(/expected <prompt>@<version>/);
    expect(() => parseTarget('City@1')).toThrow('"City" is not a prompt slug');
    expect(parseMinScores(['exact=0.8,polite=1', 'tone=0'])).toEqual([
      { grader: 'exact', min: 0.8 },
      { grader: 'polite', min: 1 },
      { grader: 'tone', min: 0 },
    ]);
    expect(() => parseMinScores(['exact=1.5'])).toThrow('--min-score "exact=1.5": expected <grader>=<score from 0 to 1>');
    expect(() => parseMinScores(['exact=1', 'exact=0.5'])).toThrow('--min-score names "exact" twice');
  });
});
