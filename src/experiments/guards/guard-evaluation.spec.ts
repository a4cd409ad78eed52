import { guardsSchema, SplitGuard } from '../../registry/deployments/guards';
import { ArmCounts, countsOf, countsSince, tripsOf, weightsAfter } from './guard-evaluation';

const counts = (calls: number, errors: number, scores: ArmCounts['scores'] = {}): ArmCounts => ({ calls, errors, scores });
const of = (table: Record<number, ArmCounts>) => (version: number) => table[version] ?? counts(0, 0);
const errorRate = (maxIncrease: number, minCalls = 50): SplitGuard => ({ metric: 'error_rate', maxIncrease, minCalls });
const feedback = (name: string, min: number, minCount = 10): SplitGuard => ({ metric: 'feedback', name, min, minCount });
const split = [
  { version: 7, weight: 90 },
  { version: 8, weight: 10 },
];

describe('tripsOf: error_rate', () => {
  it('trips once the arm has minCalls calls and its rate is more than maxIncrease points above the control', () => {
    // 20 % against 1 %: +19 points.
    const [trip] = tripsOf(split, [errorRate(2)], of({ 7: counts(200, 2), 8: counts(50, 10) }));
    expect(trip).toMatchObject({
      version: 8,
      guard: errorRate(2),
      figures: {
        arm: { version: 8, calls: 50, errors: 10, errorRate: 0.2 },
        control: { version: 7, calls: 200, errors: 2, errorRate: 0.01 },
        increasePoints: 19,
      },
    });
    expect(trip.reason).toBe("v8's error rate is 19.0 points above v7's (10 errors in 50 calls, against 2 in 200); the guard allows 2");
  });

  it('waits for minCalls, however bad the rate', () => {
    expect(tripsOf(split, [errorRate(2)], of({ 7: counts(200, 0), 8: counts(49, 49) }))).toEqual([]);
  });

  it('an increase of exactly maxIncrease is allowed; just above it is not', () => {
    expect(tripsOf(split, [errorRate(2)], of({ 7: counts(100, 1), 8: counts(100, 3) }))).toEqual([]);
    expect(tripsOf(split, [errorRate(2)], of({ 7: counts(100, 1), 8: counts(1000, 31) }))).toHaveLength(1);
  });

  it('an arm better than the control, or as bad, never trips', () => {
    expect(tripsOf(split, [errorRate(0)], of({ 7: counts(100, 30), 8: counts(100, 30) }))).toEqual([]);
    expect(tripsOf(split, [errorRate(0)], of({ 7: counts(100, 30), 8: counts(100, 5) }))).toEqual([]);
  });

  it('a control without calls counts as 0 %', () => {
    const [trip] = tripsOf(split, [errorRate(2)], of({ 8: counts(50, 2) }));
    expect(trip.figures).toMatchObject({ control: { calls: 0, errors: 0, errorRate: null }, increasePoints: 4 });
  });
});

describe('tripsOf: feedback', () => {
  it("trips when the arm's mean of that name is below min over minCount scores", () => {
    const [trip] = tripsOf(split, [feedback('helpful', 0.6)], of({ 8: counts(10, 0, { helpful: { n: 10, sum: 3 } }) }));
    expect(trip).toMatchObject({ version: 8, figures: { arm: { version: 8, name: 'helpful', n: 10, mean: 0.3 } } });
    expect(trip.reason).toBe(`v8's mean "helpful" is 0.3 over 10 scores, below the guard's 0.6`);
  });

  it('waits for minCount scores; a mean at min is allowed; another name does not count', () => {
    expect(tripsOf(split, [feedback('helpful', 0.6)], of({ 8: counts(9, 0, { helpful: { n: 9, sum: 0 } }) }))).toEqual([]);
    expect(tripsOf(split, [feedback('helpful', 0.6)], of({ 8: counts(10, 0, { helpful: { n: 10, sum: 6 } }) }))).toEqual([]);
    expect(tripsOf(split, [feedback('helpful', 0.6)], of({ 8: counts(10, 0, { tone: { n: 50, sum: 0 } }) }))).toEqual([]);
  });
});

describe('tripsOf: which arms', () => {
  it('never the control; not an arm already at weight 0; each arm by the first guard it crosses', () => {
    const arms = [
      { version: 1, weight: 50 },
      { version: 2, weight: 25 },
      { version: 3, weight: 0 },
      { version: 4, weight: 25 },
    ];
    const bad = counts(100, 100, { helpful: { n: 50, sum: 0 } });
    const trips = tripsOf(arms, [feedback('helpful', 0.5), errorRate(1)], of({ 1: bad, 2: bad, 3: bad, 4: counts(100, 0) }));
    expect(trips.map((trip) => [trip.version, trip.guard.metric])).toEqual([[2, 'feedback']]);
  });
});

describe('countsSince', () => {
  it('subtracts the baseline: calls, errors and each score; names scored only before are dropped', () => {
    const now = counts(120, 14, { helpful: { n: 40, sum: 10 }, old: { n: 5, sum: 5 } });
    const baseline = counts(20, 4, { helpful: { n: 10, sum: 7 }, old: { n: 5, sum: 5 } });
    expect(countsSince(now, baseline)).toEqual(counts(100, 10, { helpful: { n: 30, sum: 3 } }));
    expect(countsSince(now)).toEqual(now);
  });

  it('never goes below 0 (rollups dropped by retention)', () => {
    expect(countsSince(counts(5, 0), counts(10, 3))).toEqual(counts(0, 0));
  });

  it('countsOf reads the verdicts figures of an arm', () => {
    const arm = { version: 8, calls: 10, errors: 2, scores: [{ name: 'helpful', n: 4, sum: 3, sumSquares: 3, booleans: true }] };
    expect(countsOf(arm)).toEqual(counts(10, 2, { helpful: { n: 4, sum: 3 } }));
  });
});

describe('weightsAfter', () => {
  it('stops the tripped arms and keeps every other weight', () => {
    const arms = [
      { version: 1, weight: 80 },
      { version: 2, weight: 10 },
      { version: 3, weight: 10 },
    ];
    const [trip] = tripsOf(arms, [errorRate(2)], of({ 1: counts(100, 0), 2: counts(100, 50), 3: counts(100, 0) }));
    expect([...weightsAfter(arms, [trip])]).toEqual([
      [1, 80],
      [2, 0],
      [3, 10],
    ]);
  });

  it('a control at 0 takes all the traffic when no other arm is left', () => {
    const arms = [
      { version: 1, weight: 0 },
      { version: 2, weight: 100 },
    ];
    const trips = tripsOf(arms, [errorRate(2)], of({ 2: counts(100, 50) }));
    expect([...weightsAfter(arms, trips)]).toEqual([
      [1, 1],
      [2, 0],
    ]);
  });
});

describe('guardsSchema', () => {
  it('fills in the defaults and refuses what is not a guard, each at its path', () => {
    expect(
      guardsSchema.parse([
        { metric: 'error_rate', maxIncrease: 2 },
        { metric: 'feedback', name: 'helpful', min: 0.5 },
      ]),
    ).toEqual([
      { metric: 'error_rate', maxIncrease: 2, minCalls: 100 },
      { metric: 'feedback', name: 'helpful', min: 0.5, minCount: 30 },
    ]);
    const issues = (value: unknown) => guardsSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues([{ metric: 'latency', maxIncrease: 2 }])).toEqual([expect.stringMatching(/^0\.metric: Expected a guard: /)]);
    expect(issues([{ metric: 'error_rate', maxIncrease: 101 }])).toEqual(['0.maxIncrease: Expected percentage points from 0 to 100']);
    expect(issues([{ metric: 'error_rate', maxIncrease: 1, minCalls: 0 }])).toHaveLength(1);
    expect(issues([{ metric: 'feedback', name: 'Helpful', min: 1, extra: true }])).toEqual([
      expect.stringMatching(/^0\.name: Expected a feedback name/),
      '0: Unrecognized key: "extra"',
    ]);
    expect(issues(Array.from({ length: 11 }, () => ({ metric: 'error_rate', maxIncrease: 1 })))).toEqual([': Expected at most 10 guards']);
  });
});
