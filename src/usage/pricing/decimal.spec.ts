import { divideDecimal, formatDecimal, parseDecimal, sumOfProducts } from './decimal';
import { costOf } from './price';

describe('decimal costs', () => {
  it('parses numbers and decimal strings exactly', () => {
    expect(parseDecimal(2.5)).toEqual({ units: 25n, scale: 1 });
    expect(parseDecimal('0.025')).toEqual({ units: 25n, scale: 3 });
    expect(parseDecimal(1e-7)).toEqual({ units: 1n, scale: 7 });
    expect(parseDecimal('3e2')).toEqual({ units: 300n, scale: 0 });
    expect(() => parseDecimal('-1')).toThrow();
    expect(() => parseDecimal('abc')).toThrow();
  });

  it('sums products without float rounding', () => {
    expect(sumOfProducts([{ count: 3, price: parseDecimal('0.1') }], 0)).toBe('0.3');
    expect(formatDecimal(1200n, 3)).toBe('1.2');
    expect(formatDecimal(5n, 0)).toBe('5');
  });

  it('prices each kind of token at its rate, reasoning at the output rate, missing cache rates at the input rate', () => {
    const tokens = { input: 800, cacheRead: 200, cacheWrite: 100, reasoning: 30, output: 20 };
    expect(costOf(tokens, { input: 2.5, cacheRead: 1.25, output: 10, ref: 't' })).toBe('0.003');
  });

  it('applies the tier a prompt of that size falls in', () => {
    const tiered = { base: 1, tiers: [{ start: 1000, price: 2 }] };
    expect(costOf({ input: 1000, cacheRead: 0, cacheWrite: 0, reasoning: 0, output: 0 }, { input: tiered, output: 0, ref: 't' })).toBe(
      '0.001',
    );
    expect(costOf({ input: 1001, cacheRead: 0, cacheWrite: 0, reasoning: 0, output: 0 }, { input: tiered, output: 0, ref: 't' })).toBe(
      '0.002002',
    );
  });
});

describe('divideDecimal', () => {
  it('divides exactly, rounding half up at the last place', () => {
    expect(divideDecimal('0.3', 3)).toBe('0.1');
    expect(divideDecimal('1', 3)).toBe('0.333333333333');
    expect(divideDecimal('2', 3)).toBe('0.666666666667');
    expect(divideDecimal('0.00275', 1)).toBe('0.00275');
    expect(divideDecimal('0', 7)).toBe('0');
    expect(divideDecimal('5', 2, 0)).toBe('3');
  });
});
