/**
 * The statistics of feedback (docs/experiments.md, "Statistics"): pure functions over the sums a
 * rollup keeps (count, sum, sum of squares), so a summary never reads the feedback rows.
 *
 * - A mean's interval uses Student's t with n - 1 degrees of freedom at every n, not a normal
 *   approximation: with the few ratings an arm has early on, the normal's 1.96 is too narrow
 *   (t is 2.78 at n = 5, 2.09 at n = 20), and t tends to the normal anyway as n grows.
 * - A share (boolean values: the share of `true`) uses the Wilson score interval: unlike p ± z·se
 *   it stays inside [0, 1] and does not collapse to a point at 0 or n successes.
 * - Two arms are compared through the interval of their difference (Welch's t for means,
 *   Newcombe's hybrid score interval for shares); a verdict is given only when it excludes 0.
 */

/** The normal quantile of 0.975: every interval here is a 95 % one. */
export const Z_95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/** An arm's values as a rollup holds them. `booleans`: each value is 1 (true) or 0 (false). */
export interface ArmValues {
  n: number;
  sum: number;
  sumSquares: number;
  booleans: boolean;
}

export interface Estimate {
  n: number;
  mean: number | null;
  /** null when no interval can be given (no values; a mean of one value has no spread). */
  interval: Interval | null;
  method: 'wilson' | 't' | null;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 significant digits). */
function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    c = 1 + aa / c;
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = Math.abs(c) < tiny ? tiny : c;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    c = 1 + aa / c;
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = Math.abs(c) < tiny ? tiny : c;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom (df > 0, not necessarily whole: Welch's). */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The t with P(T ≤ t) = p, for p in (0.5, 1): found by bisection on the CDF (60 halvings: below 1e-12). */
export function studentTQuantile(p: number, df: number): number {
  let low = 0;
  let high = 2;
  while (studentTCdf(high, df) < p) high *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (studentTCdf(mid, df) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** Wilson's score interval for `successes` of `n` (n > 0). */
export function wilsonInterval(successes: number, n: number, z = Z_95): Interval {
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0 (n) successes the bound is 0 (1) exactly; the subtraction leaves a rounding error of ~1e-17 there.
  return { low: successes <= 0 ? 0 : Math.max(0, centre - half), high: successes >= n ? 1 : Math.min(1, centre + half) };
}

/** The sample variance from the sums (never negative: rounding can make the difference slightly so). */
function variance(values: ArmValues): number {
  return Math.max(0, (values.sumSquares - (values.sum * values.sum) / values.n) / (values.n - 1));
}

/** The mean of an arm's values and its 95 % interval: Wilson for booleans, Student's t for numbers. */
export function estimate(values: ArmValues): Estimate {
  const { n } = values;
  if (n <= 0) return { n: 0, mean: null, interval: null, method: null };
  const mean = values.sum / n;
  if (values.booleans) return { n, mean, interval: wilsonInterval(values.sum, n), method: 'wilson' };
  if (n < 2) return { n, mean, interval: null, method: null };
  const half = studentTQuantile(0.975, n - 1) * Math.sqrt(variance(values) / n);
  return { n, mean, interval: { low: mean - half, high: mean + half }, method: 't' };
}

export interface Comparison {
  /** Mean of a minus mean of b, and its 95 % interval; null when the arms cannot be compared yet. */
  difference: (Interval & { estimate: number }) | null;
  /** The better arm, only when the difference's interval excludes 0; null: no verdict (yet). */
  verdict: 'a' | 'b' | null;
}

/** Welch's interval for the difference of two means (unequal variances). */
function meanDifference(a: ArmValues, b: ArmValues): Interval & { estimate: number } {
  const va = variance(a) / a.n;
  const vb = variance(b) / b.n;
  const estimate = a.sum / a.n - b.sum / b.n;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { estimate, low: estimate, high: estimate };
  const df = (va + vb) ** 2 / (va ** 2 / (a.n - 1) + vb ** 2 / (b.n - 1));
  const half = studentTQuantile(0.975, df) * se;
  return { estimate, low: estimate - half, high: estimate + half };
}

/** Newcombe's hybrid score interval (his method 10) for the difference of two shares, from their Wilson intervals. */
function shareDifference(a: ArmValues, b: ArmValues): Interval & { estimate: number } {
  const [pa, pb] = [a.sum / a.n, b.sum / b.n];
  const [wa, wb] = [wilsonInterval(a.sum, a.n), wilsonInterval(b.sum, b.n)];
  const estimate = pa - pb;
  return {
    estimate,
    low: estimate - Math.sqrt((pa - wa.low) ** 2 + (wb.high - pb) ** 2),
    high: estimate + Math.sqrt((wa.high - pa) ** 2 + (pb - wb.low) ** 2),
  };
}

/**
 * Which of two arms scores higher (or lower, with `higherIsBetter: false`), decided only when the
 * 95 % interval of their difference excludes 0; otherwise no verdict. Both arms must hold the same
 * kind of values (booleans, or numbers: at least two each, a mean of one has no spread).
 */
export function compareArms(a: ArmValues, b: ArmValues, options: { higherIsBetter?: boolean } = {}): Comparison {
  const booleans = a.booleans && b.booleans;
  const enough = booleans ? a.n >= 1 && b.n >= 1 : a.n >= 2 && b.n >= 2 && !a.booleans && !b.booleans;
  if (!enough) return { difference: null, verdict: null };
  const difference = booleans ? shareDifference(a, b) : meanDifference(a, b);
  const aHigher = difference.low > 0;
  const bHigher = difference.high < 0;
  if (!aHigher && !bHigher) return { difference, verdict: null };
  const higherIsBetter = options.higherIsBetter ?? true;
  return { difference, verdict: aHigher === higherIsBetter ? 'a' : 'b' };
}
