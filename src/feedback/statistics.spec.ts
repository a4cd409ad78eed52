import { compareArms, estimate, studentTCdf, studentTQuantile, wilsonInterval } from './statistics';

/**
 * Worked values, each checked independently (SciPy 1.17: scipy.stats.t.ppf / t.cdf,
 * binomtest(...).proportion_ci(method='wilson'), ttest_ind(equal_var=False).confidence_interval()),
 * and two from the literature: Wilson for 10 of 100 is [0.0552, 0.1744]; Newcombe (1998, Statistics
 * in Medicine 17:873, example (a), method 10) gives [0.0524, 0.3339] for 56/70 − 48/80.
 */
const arm = (values: number[], booleans = false) => ({
  n: values.length,
  sum: values.reduce((s, v) => s + v, 0),
  sumSquares: values.reduce((s, v) => s + v * v, 0),
  booleans,
});
const shares = (successes: number, n: number) => ({ n, sum: successes, sumSquares: successes, booleans: true });
const rounded = (interval: { low: number; high: number } | null, places = 4) =>
  interval && [Number(interval.low.toFixed(places)), Number(interval.high.toFixed(places))];

describe('Student t', () => {
  it.each([
    [1, 12.706205],
    [4, 2.776445],
    [9, 2.262157],
    [29, 2.04523],
    [1000, 1.962339],
    [7.5, 2.33304],
  ])('the 0.975 quantile at df = %p is %p', (df, t) => {
    expect(studentTQuantile(0.975, df)).toBeCloseTo(t, 5);
  });

  it('its CDF', () => {
    expect(studentTCdf(2, 3)).toBeCloseTo(0.9303370157, 9);
    expect(studentTCdf(-1.5, 10)).toBeCloseTo(0.0822536632, 9);
    expect(studentTCdf(0, 5)).toBeCloseTo(0.5, 12);
  });
});

describe('Wilson score interval', () => {
  it('10 of 100 is [0.0552, 0.1744]', () => {
    expect(rounded(wilsonInterval(10, 100))).toEqual([0.0552, 0.1744]);
  });

  it('stays inside [0, 1] at 0 and n successes, and is not a point there', () => {
    expect(rounded(wilsonInterval(0, 10))).toEqual([0, 0.2775]);
    expect(rounded(wilsonInterval(10, 10))).toEqual([0.7225, 1]);
    expect(rounded(wilsonInterval(7, 10))).toEqual([0.3968, 0.8922]);
    expect(rounded(wilsonInterval(1, 1))).toEqual([0.2065, 1]);
  });

  it('is exactly 0 at 0 successes and exactly 1 at n, at every n (not 1e-17 off: an interval must hold its share)', () => {
    for (let n = 1; n <= 500; n++) {
      expect([n, wilsonInterval(0, n).low, wilsonInterval(n, n).high]).toEqual([n, 0, 1]);
    }
  });
});

describe('estimate', () => {
  it('a mean of numbers: Student t with n - 1 degrees of freedom', () => {
    // 4, 5, 3, 5, 4: mean 4.2, s = 0.83666, t(0.975, 4) = 2.776445, half-width 1.0389.
    const result = estimate(arm([4, 5, 3, 5, 4]));
    expect(result).toMatchObject({ n: 5, mean: 4.2, method: 't' });
    expect(rounded(result.interval)).toEqual([3.1611, 5.2389]);
  });

  it('booleans: the share of true with its Wilson interval', () => {
    const result = estimate(shares(10, 100));
    expect(result).toMatchObject({ n: 100, mean: 0.1, method: 'wilson' });
    expect(rounded(result.interval)).toEqual([0.0552, 0.1744]);
  });

  it('no interval without values, nor for one number (no spread); zero spread is a point', () => {
    expect(estimate({ n: 0, sum: 0, sumSquares: 0, booleans: false })).toEqual({ n: 0, mean: null, interval: null, method: null });
    expect(estimate(arm([3]))).toEqual({ n: 1, mean: 3, interval: null, method: null });
    expect(estimate(arm([2, 2, 2]))).toEqual({ n: 3, mean: 2, interval: { low: 2, high: 2 }, method: 't' });
  });
});

describe('compareArms', () => {
  it("means: Welch's interval of the difference decides when it excludes 0", () => {
    // a = 4 5 3 5 4 5 4 5, b = 3 2 4 3 3 2 3: difference 1.5179, [0.7172, 2.3185] (Welch df 12.94).
    const result = compareArms(arm([4, 5, 3, 5, 4, 5, 4, 5]), arm([3, 2, 4, 3, 3, 2, 3]));
    expect(result.verdict).toBe('a');
    expect(result.difference!.estimate).toBeCloseTo(1.517857, 6);
    expect(rounded(result.difference)).toEqual([0.7172, 2.3185]);
    expect(compareArms(arm([3, 2, 4, 3, 3, 2, 3]), arm([4, 5, 3, 5, 4, 5, 4, 5])).verdict).toBe('b');
    expect(compareArms(arm([4, 5, 3, 5, 4, 5, 4, 5]), arm([3, 2, 4, 3, 3, 2, 3]), { higherIsBetter: false }).verdict).toBe('b');
  });

  it('means: no verdict while the interval holds 0', () => {
    // a = 4 5 3 5, b = 4 3 5 4: difference 0.25, [-1.2988, 1.7988].
    const result = compareArms(arm([4, 5, 3, 5]), arm([4, 3, 5, 4]));
    expect(result.verdict).toBeNull();
    expect(rounded(result.difference)).toEqual([-1.2988, 1.7988]);
  });

  it("shares: Newcombe's hybrid score interval (56/70 vs 48/80 is [0.0524, 0.3339])", () => {
    const result = compareArms(shares(56, 70), shares(48, 80));
    expect(result.verdict).toBe('a');
    expect(result.difference!.estimate).toBeCloseTo(0.2, 10);
    expect(rounded(result.difference)).toEqual([0.0524, 0.3339]);
    expect(rounded(compareArms(shares(9, 10), shares(3, 10)).difference)).toEqual([0.1705, 0.809]);
    const close = compareArms(shares(6, 10), shares(5, 10));
    expect(close.verdict).toBeNull();
    expect(rounded(close.difference)).toEqual([-0.2898, 0.4509]);
  });

  it('no comparison with too few values or values of different kinds', () => {
    expect(compareArms(arm([4]), arm([1, 2, 3]))).toEqual({ difference: null, verdict: null });
    expect(compareArms(shares(0, 0), shares(3, 10))).toEqual({ difference: null, verdict: null });
    expect(compareArms(shares(5, 10), arm([1, 0, 1]))).toEqual({ difference: null, verdict: null });
  });
});
