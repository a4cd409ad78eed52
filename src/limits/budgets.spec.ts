import { CostEstimates } from './cost-estimates';
import { nanoUsd, usdText } from './budgets';

describe('budget amounts', () => {
  it('turns USD decimals into nano-USD exactly: a cost rounds up, a budget down', () => {
    expect(nanoUsd('0.00275', 'up')).toBe(2_750_000);
    expect(nanoUsd('1e-7', 'up')).toBe(100);
    expect(nanoUsd('0.0000000001', 'up')).toBe(1);
    expect(nanoUsd('0.0000000001', 'down')).toBe(0);
    expect(nanoUsd(25, 'down')).toBe(25_000_000_000);
    expect(nanoUsd(0.1, 'down')).toBe(100_000_000);
    expect(nanoUsd(1_000_000, 'down')).toBe(1e15);
    expect(usdText(2_750_000)).toBe('0.00275');
    expect(usdText(25_000_000_000)).toBe('25');
    expect(usdText(0)).toBe('0');
  });

  it('estimates a key\'s next call high: at once up to a dearer call, down by a tenth per cheaper one', () => {
    const estimates = new CostEstimates();
    expect(estimates.of('p', 'k')).toBe(0);
    estimates.observe('p', 'k', 1000);
    expect(estimates.of('p', 'k')).toBe(1000);
    // Another key of the project starts from the project's estimate.
    expect(estimates.of('p', 'other')).toBe(1000);
    estimates.observe('p', 'k', 5000);
    expect(estimates.of('p', 'k')).toBe(5000);
    estimates.observe('p', 'k', 0);
    expect(estimates.of('p', 'k')).toBe(4500);
  });
});
