import { NOT_ENOUGH_EVIDENCE, sentence, VerdictArm, verdictsOf } from './verdicts';

const arm = (version: number, calls: number, errors: number, scores: VerdictArm['scores'] = []): VerdictArm => ({
  version,
  calls,
  errors,
  scores,
});
const shares = (name: string, successes: number, n: number) => ({ name, n, sum: successes, sumSquares: successes, booleans: true });
const numbers = (name: string, values: number[]) => ({
  name,
  n: values.length,
  sum: values.reduce((s, v) => s + v, 0),
  sumSquares: values.reduce((s, v) => s + v * v, 0),
  booleans: false,
});

describe('verdictsOf', () => {
  it('an arm with a higher error rate loses to the control, with the difference in points (Newcombe)', () => {
    // Newcombe (1998), example (a): 56/70 − 48/80 = 0.20, interval [0.0524, 0.3339].
    const [rate] = verdictsOf(arm(7, 80, 48), [arm(8, 70, 56)]);
    expect(rate).toMatchObject({ version: 8, control: 7, metric: 'error_rate', name: null, better: 'lower', winner: 7, reason: null });
    expect(rate.difference!.estimate).toBeCloseTo(0.2, 10);
    expect(rate.difference!.low).toBeCloseTo(0.0524, 4);
    expect(rate.difference!.high).toBeCloseTo(0.3339, 4);
    expect(rate.verdict).toBe("v8's error rate is higher than v7's: +20.0 points (95 % interval +5.2 to +33.4)");
  });

  it('a lower error rate wins; the sentence says lower with a minus sign', () => {
    const [rate] = verdictsOf(arm(1, 70, 56), [arm(2, 80, 48)]);
    expect(rate.winner).toBe(2);
    expect(rate.verdict).toBe("v2's error rate is lower than v1's: -20.0 points (95 % interval -33.4 to -5.2)");
  });

  it('no verdict while the interval holds 0: the reason says there is not enough evidence yet', () => {
    const [rate] = verdictsOf(arm(1, 100, 3), [arm(2, 100, 5)]);
    expect(rate).toMatchObject({ winner: null, verdict: null, reason: NOT_ENOUGH_EVIDENCE });
    expect(rate.difference!.low).toBeLessThan(0);
    expect(rate.difference!.high).toBeGreaterThan(0);
    // No errors anywhere: still an interval, holding 0.
    expect(verdictsOf(arm(1, 50, 0), [arm(2, 50, 0)])[0]).toMatchObject({ verdict: null, reason: NOT_ENOUGH_EVIDENCE });
  });

  it('an arm without calls has no difference at all, and no verdict', () => {
    expect(verdictsOf(arm(1, 100, 0), [arm(2, 0, 0)])[0]).toMatchObject({ difference: null, winner: null, reason: NOT_ENOUGH_EVIDENCE });
  });

  it('feedback scores both arms have, by name, higher is better; a score on one side only is left out', () => {
    const control = arm(1, 100, 0, [shares('helpful', 48, 80), numbers('rating', [4, 5, 3, 5, 4]), shares('only-control', 3, 4)]);
    const other = arm(2, 100, 0, [numbers('rating', [1, 2, 1, 2, 1]), shares('helpful', 56, 70), shares('only-arm', 1, 1)]);
    const verdicts = verdictsOf(control, [other]);
    expect(verdicts.map((v) => [v.metric, v.name])).toEqual([
      ['error_rate', null],
      ['feedback', 'helpful'],
      ['feedback', 'rating'],
    ]);
    const [, helpful, rating] = verdicts;
    expect(helpful).toMatchObject({ better: 'higher', winner: 2 });
    expect(helpful.verdict).toBe(`v2's "helpful" rate is higher than v1's: +20.0 points (95 % interval +5.2 to +33.4)`);
    // Welch: 1.4 − 4.2 = −2.8; s² = 0.3 and 0.7, df = 6.892, t = 2.372, se = 0.4472: [−3.861, −1.739].
    expect(rating).toMatchObject({ better: 'higher', winner: 1 });
    expect(rating.difference!.estimate).toBeCloseTo(-2.8, 10);
    expect(rating.verdict).toBe(`v2's mean "rating" is lower than v1's: -2.80 (95 % interval -3.86 to -1.74)`);
  });

  it('a score of true/false on one arm and numbers on the other is compared as numbers', () => {
    const control = arm(1, 10, 0, [shares('score', 2, 10)]);
    const other = arm(2, 10, 0, [numbers('score', [1, 1, 1, 1, 1, 1, 1, 1, 0.5, 1])]);
    const [, score] = verdictsOf(control, [other]);
    expect(score.difference).not.toBeNull();
    expect(score.verdict).toMatch(/^v2's mean "score" is higher than v1's: \+0\.75 /);
  });

  it('one number on a side is too few for a mean difference', () => {
    const [, rating] = verdictsOf(arm(1, 10, 0, [numbers('rating', [4])]), [arm(2, 10, 0, [numbers('rating', [3, 5])])]);
    expect(rating).toMatchObject({ difference: null, verdict: null, reason: NOT_ENOUGH_EVIDENCE });
  });

  it('a plain deployment (no other arm) has no verdicts; several arms each get theirs against the control', () => {
    expect(verdictsOf(arm(1, 10, 0), [])).toEqual([]);
    expect(verdictsOf(arm(1, 10, 0), [arm(2, 10, 0), arm(3, 10, 0)]).map((v) => v.version)).toEqual([2, 3]);
  });
});

describe('sentence', () => {
  it('points: one decimal, two below one point; numbers: three significant digits of the largest, the same places for all', () => {
    expect(sentence(8, 7, null, true, { estimate: 0.021, low: 0.004, high: 0.038 })).toBe(
      "v8's error rate is higher than v7's: +2.1 points (95 % interval +0.4 to +3.8)",
    );
    expect(sentence(8, 7, null, true, { estimate: 0.004, low: 0.001, high: 0.007 })).toBe(
      "v8's error rate is higher than v7's: +0.40 points (95 % interval +0.10 to +0.70)",
    );
    expect(sentence(3, 1, 'latency-score', false, { estimate: 123.456, low: 20.5, high: 226.4 })).toBe(
      `v3's mean "latency-score" is higher than v1's: +123 (95 % interval +21 to +226)`,
    );
    expect(sentence(3, 1, 'tone', false, { estimate: -0.0123, low: -0.02, high: -0.0046 })).toBe(
      `v3's mean "tone" is lower than v1's: -0.0123 (95 % interval -0.0200 to -0.0046)`,
    );
  });
});
