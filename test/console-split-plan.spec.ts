import {
  armProblems,
  costText,
  type Deployment,
  differenceText,
  draftStickyOf,
  feedbackText,
  initialArms,
  shareText,
  splitBody,
  stopBody,
  type Verdict,
} from '../console/src/screens/split/split-plan';

/** The console's split screen: what it sends and how it words the figures (docs/console.md, "Splits"); pure functions, no browser. */
describe('console split plan', () => {
  const deployment = (over: Partial<Deployment>): Deployment => ({
    id: 'd',
    slug: 'reply',
    kind: 'prompt',
    environment: 'production',
    version: 1,
    versionId: 'v',
    deploymentVersion: 2,
    deployedAt: '2026-01-01T00:00:00.000Z',
    replacedAt: null,
    current: true,
    split: null,
    stickyBy: null,
    rules: null,
    guards: null,
    ...over,
  });
  const thread = { kind: 'thread' as const, key: '' };

  it('names each problem of the arms as typed, and none for a valid split', () => {
    expect(
      armProblems(
        [
          { version: '1', weight: '50' },
          { version: '2', weight: '50' },
        ],
        thread,
      ),
    ).toEqual([]);
    expect(
      armProblems(
        [
          { version: '', weight: '5x' },
          { version: '2', weight: '10001' },
          { version: '2', weight: '-1' },
        ],
        { kind: 'metadata', key: '1bad' },
      ),
    ).toEqual([
      'Arm 1: choose a version.',
      'Arm 1: the weight is a whole number from 0 to 10000.',
      'Arm 2: the weight is a whole number from 0 to 10000.',
      'Arm 3: the weight is a whole number from 0 to 10000.',
      'v2 is in more than one arm: each version once.',
      'The metadata field: a letter or "_" first, then letters, digits, "_", "." or "-" (at most 64).',
    ]);
    expect(
      armProblems(
        [
          { version: '1', weight: '0' },
          { version: '2', weight: '0' },
        ],
        thread,
      ),
    ).toEqual(['At least one arm needs a weight above 0.']);
    expect(armProblems([], thread)).toEqual(['Add at least one arm.']);
  });

  it("stops an arm by its weight alone, keeping the split's stickiness and rules", () => {
    const rules = [{ version: 2, metadata: { tier: 'internal' } }];
    const current = deployment({
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
      stickyBy: 'user',
      rules,
    });
    expect(stopBody(current, 2)).toEqual({
      environment: 'production',
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 0 },
      ],
      stickyBy: 'user',
      rules,
    });
  });

  it("sends the form's split with the rules whose version is still an arm", () => {
    const current = deployment({
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      stickyBy: 'thread',
      rules: [
        { version: 2, user: 'qa' },
        { version: 1, user: 'ops' },
      ],
    });
    const arms = [
      { version: '1', weight: '70' },
      { version: '3', weight: '30' },
    ];
    expect(splitBody('production', arms, { kind: 'metadata', key: 'customer' }, current)).toEqual({
      environment: 'production',
      split: [
        { version: 1, weight: 70 },
        { version: 3, weight: 30 },
      ],
      stickyBy: 'metadata.customer',
      rules: [{ version: 1, user: 'ops' }],
    });
    expect(splitBody('staging', arms, thread, undefined)).not.toHaveProperty('rules');
    expect(draftStickyOf('metadata.customer')).toEqual({ kind: 'metadata', key: 'customer' });
    expect(draftStickyOf(null)).toEqual(thread);
  });

  it('starts the form from the split, or the live version against the newest other one, 50/50', () => {
    expect(initialArms(deployment({ version: 2 }), [1, 2, 3])).toEqual([
      { version: '2', weight: '50' },
      { version: '3', weight: '50' },
    ]);
    expect(initialArms(deployment({ version: 1 }), [1])).toEqual([{ version: '1', weight: '100' }]);
    expect(initialArms(undefined, [1, 4, 2])).toEqual([{ version: '4', weight: '100' }]);
    expect(initialArms(deployment({ split: [{ version: 5, weight: 1 }] }), [5])).toEqual([{ version: '5', weight: '1' }]);
  });

  it('words shares, costs, feedback and differences', () => {
    expect([shareText(1, 3), shareText(50, 100), shareText(0, 0)]).toEqual(['33.3 %', '50 %', '—']);
    expect([costText('0.00005972973'), costText('0.4125'), costText(null)]).toEqual(['$0.0000597', '$0.413', '—']);
    const interval = (low: number, high: number, method: 'wilson' | 't') => ({ low, high, method });
    expect(
      feedbackText({
        name: 'helpful',
        kind: 'boolean',
        count: 60,
        n: 60,
        mean: 0.8,
        interval: interval(0.6822, 0.8817, 'wilson'),
        categories: {},
      }),
    ).toBe('80 % true (95 % CI 68.2–88.2 %), 60 scores');
    expect(
      feedbackText({ name: 'stars', kind: 'number', count: 5, n: 5, mean: 4.2, interval: interval(3.16, 5.24, 't'), categories: {} }),
    ).toBe('mean 4.2 ± 1.04, 5 scores');
    expect(
      feedbackText({ name: 'tone', kind: 'category', count: 3, n: 0, mean: null, interval: null, categories: { friendly: 2, curt: 1 } }),
    ).toBe('friendly 2 · curt 1');
    const verdict = (difference: Verdict['difference']): Verdict => ({
      version: 2,
      control: 1,
      metric: 'error_rate',
      name: null,
      better: 'lower',
      difference,
      winner: null,
      verdict: null,
      reason: 'not enough evidence yet',
    });
    expect(differenceText(verdict({ estimate: 0.021, low: -0.004, high: 0.046 }), true)).toBe('+2.1 points (95 % interval -0.4 to +4.6)');
    expect(differenceText(verdict({ estimate: -0.25, low: -0.61, high: 0.11 }), false)).toBe('-0.25 (95 % interval -0.61 to +0.11)');
    expect(differenceText(verdict(null), true)).toBeNull();
  });

  it("keeps the current split's guards when it stops an arm or sends a new split from the form", () => {
    const guards = [{ metric: 'error_rate' as const, maxIncrease: 2, minCalls: 100 }];
    const current = deployment({
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
      stickyBy: 'thread',
      guards,
    });
    expect(stopBody(current, 2)).toMatchObject({
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 0 },
      ],
      guards,
    });
    const arms = [
      { version: '1', weight: '50' },
      { version: '2', weight: '50' },
    ];
    expect(splitBody('production', arms, thread, current)).toMatchObject({ guards });
    expect(splitBody('production', arms, thread, deployment({}))).not.toHaveProperty('guards');
  });
});
