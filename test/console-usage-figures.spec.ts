import { bucketLabel, tickLabel } from '../console/src/components/bucket-labels';
import { addDecimals, errorRate, figuresOf, type Report, type Row } from '../console/src/screens/usage-figures';

const DAY = 86_400;
const NOV_14 = Date.UTC(2025, 10, 14) / 1000;

/** The console's usage screen: its figures from GET /v2/usage's answer and its charts' labels; pure functions, no browser. */
describe('console usage figures', () => {
  const row = (day: number, over: Partial<Row>): Row =>
    ({
      start: new Date((NOV_14 + day * DAY) * 1000).toISOString(),
      end: new Date((NOV_14 + (day + 1) * DAY) * 1000).toISOString(),
      calls: 1,
      errors: 0,
      partialCalls: 0,
      unpricedCalls: 0,
      tokens: { uncachedInput: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, output: 0, total: 0 },
      costUsd: '0',
      latencyMs: { p50: null, p95: null },
      ...over,
    }) as Row;
  const report = (rows: Row[], days = 3): Report =>
    ({
      object: 'usage.report',
      from: new Date(NOV_14 * 1000).toISOString(),
      to: new Date((NOV_14 + days * DAY) * 1000).toISOString(),
      bucket: 'day',
      groupBy: ['prompt'],
      data: rows,
      totals: row(0, {}),
      unpriced: [],
    }) as Report;

  it('adds USD decimal strings exactly, as the API does', () => {
    expect(addDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(addDecimals(['0.00275', '1.2', '3'])).toBe('4.20275');
    expect(addDecimals(['0.000001', '0.000009'])).toBe('0.00001');
    expect(addDecimals([])).toBe('0');
    expect(addDecimals(['0', '0.0'])).toBe('0');
    expect(addDecimals(['-0.5', '0.25'])).toBe('-0.25');
  });

  it('gives every bucket of the range, quiet ones as zero, and a series per group with its own values', () => {
    const figures = figuresOf(
      report([
        row(0, { prompt: 'reply', calls: 3, costUsd: '0.003' }),
        row(2, { prompt: 'reply', calls: 1, costUsd: '0.001' }),
        row(2, { prompt: 'chat', calls: 5, errors: 1, costUsd: '0.0005' }),
      ]),
      'prompt',
      new Map(),
    );
    expect(figures.buckets).toEqual([NOV_14, NOV_14 + DAY, NOV_14 + 2 * DAY]);
    // The series by calls, most first; each its own values (the chart stacks them).
    expect(figures.calls).toEqual([
      { label: 'chat', values: [0, 0, 5] },
      { label: 'reply', values: [3, 0, 1] },
    ]);
    expect(figures.cost).toEqual([
      { label: 'chat', values: [0, 0, 0.0005] },
      { label: 'reply', values: [0.003, 0, 0.001] },
    ]);
    // The groups by cost, most first.
    expect(figures.groups).toEqual([
      { label: 'reply', calls: 4, errors: 0, costUsd: '0.004' },
      { label: 'chat', calls: 5, errors: 1, costUsd: '0.0005' },
    ]);
  });

  it('draws at most 8 series: beyond, the groups with the fewest calls are one', () => {
    const rows = Array.from({ length: 10 }, (_, i) => row(0, { prompt: `p${i}`, calls: 10 - i }));
    const figures = figuresOf(report(rows, 1), 'prompt', new Map());
    expect(figures.calls.map((s) => s.label)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', '3 other prompts']);
    expect(figures.calls.at(-1)!.values).toEqual([3 + 2 + 1]);
    expect(figures.groups).toHaveLength(10);
  });

  it('names a key by its name when known, by the start of its id otherwise', () => {
    const keyId = '0190a8b2-1111-7000-8000-000000000001';
    const rows = [row(0, { keyId }), row(0, { keyId: '0190a8b2-2222-7000-8000-000000000002' }), row(0, { keyId: null })];
    const named = figuresOf(report(rows, 1), 'key', new Map([[keyId, 'key ci-bot']]));
    expect(named.groups.map((g) => g.label).sort()).toEqual(['key 0190a8b2…', 'key ci-bot', 'no project key']);
  });

  it('words the error rate', () => {
    expect([errorRate(1, 40), errorRate(0, 7), errorRate(0, 0)]).toEqual(['2.5 %', '0.0 %', '—']);
  });

  it('labels day buckets as days (never hours), hour buckets as hours, in UTC', () => {
    expect(tickLabel(NOV_14, 'day')).toBe('14 Nov');
    expect(tickLabel(NOV_14 + 13 * 3600, 'hour')).toBe('13:00');
    expect(tickLabel(NOV_14, 'hour')).toBe('14 Nov');
    expect(bucketLabel(NOV_14, 'day')).toBe('Fri 14 Nov 2025');
    expect(bucketLabel(NOV_14 + 23 * 3600, 'hour')).toBe('14 Nov 2025, 23:00–00:00 UTC');
  });
});
