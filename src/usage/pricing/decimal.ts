/**
 * Exact decimal arithmetic for costs (USD as NUMERIC, never a float's rounding): a decimal string
 * is an integer mantissa and a power-of-ten scale, both BigInt-exact.
 */
interface Decimal {
  units: bigint;
  scale: number;
}

/** Parses a finite non-negative number or decimal string ("2.5", "0.025", "1e-7"). */
export function parseDecimal(value: number | string): Decimal {
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  const match = /^(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!match || (match[1] === '' && !match[2])) throw new Error(`not a decimal: ${text}`);
  const digits = `${match[1]}${match[2] ?? ''}` || '0';
  let scale = (match[2] ?? '').length - Number(match[3] ?? 0);
  let units = BigInt(digits);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units, scale };
}

function numberText(value: number): string {
  if (!Number.isFinite(value) || value < 0) throw new Error(`not a price: ${value}`);
  return String(value);
}

/** Σ count × decimal, divided by 10^shift: exact. */
export function sumOfProducts(terms: Array<{ count: number; price: Decimal }>, shift: number): string {
  const scale = Math.max(0, ...terms.map((t) => t.price.scale));
  let total = 0n;
  for (const { count, price } of terms) total += BigInt(count) * price.units * 10n ** BigInt(scale - price.scale);
  return formatDecimal(total, scale + shift);
}

export function formatDecimal(units: bigint, scale: number): string {
  if (scale <= 0) return (units * 10n ** BigInt(-scale)).toString();
  const text = units.toString().padStart(scale + 1, '0');
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

export type { Decimal };

/** The exact sum of decimal strings. */
export function addDecimals(values: readonly string[]): string {
  const parsed = values.map((v) => parseDecimal(v));
  const scale = Math.max(0, ...parsed.map((p) => p.scale));
  let total = 0n;
  for (const p of parsed) total += p.units * 10n ** BigInt(scale - p.scale);
  return formatDecimal(total, scale);
}

/** A decimal string divided by a positive integer, rounded half up to `places` decimals (trailing zeros dropped). */
export function divideDecimal(value: string, divisor: number, places = 12): string {
  const { units, scale } = parseDecimal(value);
  const numerator = units * 10n ** BigInt(places);
  const denominator = BigInt(divisor) * 10n ** BigInt(scale);
  return formatDecimal((2n * numerator + denominator) / (2n * denominator), places);
}
