import { chooseVersion, DeploymentSplit, hashPoint, splitRulesSchema, splitSchema, stickyBySchema } from './split';

const split = (
  arms: [number, number][],
  stickyBy: DeploymentSplit['stickyBy'] = 'thread',
  rules: DeploymentSplit['rules'] = [],
): DeploymentSplit => ({
  arms: arms.map(([version, weight]) => ({ version, weight })),
  stickyBy,
  rules,
});
const context = (over: Partial<{ threadId: string | null; user: string; metadata: Record<string, string | number> }> = {}) => ({
  threadId: null,
  user: undefined,
  metadata: {},
  ...over,
});

describe('chooseVersion', () => {
  it('draws by weight when there is no sticky key: 90/10 over 100,000 seeded draws lands within half a point', () => {
    let seed = 42;
    // A small linear congruential generator: the same draws on every run.
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const s = split(
      [
        [7, 90],
        [8, 10],
      ],
      'none',
    );
    let eights = 0;
    for (let i = 0; i < 100_000; i += 1) if (chooseVersion(s, 'd1', context(), random) === 8) eights += 1;
    expect(Math.abs(eights / 1000 - 10)).toBeLessThan(0.5);
  });

  it('sticks by thread, user or metadata key: the same key always lands on the same arm, and keys spread by weight', () => {
    const byThread = split(
      [
        [1, 50],
        [2, 50],
      ],
      'thread',
    );
    const never = () => {
      throw new Error('a sticky key must not draw');
    };
    const counts = { 1: 0, 2: 0 } as Record<number, number>;
    for (let i = 0; i < 10_000; i += 1) {
      const threadId = `thread-${i}`;
      const first = chooseVersion(byThread, 'd1', context({ threadId }), never);
      expect(chooseVersion(byThread, 'd1', context({ threadId }), never)).toBe(first);
      counts[first] += 1;
    }
    expect(Math.abs(counts[1] / 100 - 50)).toBeLessThan(1.5);
    const byUser = split(
      [
        [1, 1],
        [2, 1],
      ],
      'user',
    );
    expect(chooseVersion(byUser, 'd1', context({ user: 'ada' }), never)).toBe(chooseVersion(byUser, 'd1', context({ user: 'ada' }), never));
    const byTenant = split(
      [
        [1, 1],
        [2, 1],
      ],
      'metadata.tenant',
    );
    const tenant = chooseVersion(byTenant, 'd1', context({ metadata: { tenant: 'acme' } }), never);
    expect(chooseVersion(byTenant, 'd1', context({ metadata: { tenant: 'acme', other: 1 } }), never)).toBe(tenant);
    // No such key on the call: a fresh draw.
    expect(chooseVersion(byTenant, 'd1', context(), () => 0.99)).toBe(2);
  });

  it('a matching rule overrides the weights; a rule needs every field it names to match', () => {
    const s = split(
      [
        [7, 100],
        [8, 0],
      ],
      'none',
      [
        { version: 8, metadata: { tier: 'internal' } },
        { version: 8, user: 'qa', metadata: { region: 'eu' } },
      ],
    );
    expect(chooseVersion(s, 'd', context({ metadata: { tier: 'internal' } }))).toBe(8);
    expect(chooseVersion(s, 'd', context({ metadata: { tier: 'public' } }))).toBe(7);
    expect(chooseVersion(s, 'd', context({ user: 'qa' }))).toBe(7);
    expect(chooseVersion(s, 'd', context({ user: 'qa', metadata: { region: 'eu' } }))).toBe(8);
  });

  it('an arm of weight 0 is never drawn', () => {
    const s = split(
      [
        [1, 0],
        [2, 5],
      ],
      'none',
    );
    expect(chooseVersion(s, 'd', context(), () => 0)).toBe(2);
    expect(chooseVersion(s, 'd', context(), () => 0.999999)).toBe(2);
  });

  it('hashPoint is in [0, 1) and the same for the same key', () => {
    expect(hashPoint('a')).toBe(hashPoint('a'));
    for (let i = 0; i < 1000; i += 1) expect(hashPoint(String(i))).toBeLessThan(1);
  });
});

describe('the split body', () => {
  it('refuses duplicate versions, all-zero weights, too many arms and rules that match nothing', () => {
    expect(
      splitSchema.safeParse([
        { version: 1, weight: 50 },
        { version: 1, weight: 50 },
      ]).success,
    ).toBe(false);
    expect(splitSchema.safeParse([{ version: 1, weight: 0 }]).success).toBe(false);
    expect(splitSchema.safeParse(Array.from({ length: 11 }, (_, i) => ({ version: i + 1, weight: 1 }))).success).toBe(false);
    expect(splitRulesSchema.safeParse([{ version: 2 }]).success).toBe(false);
    expect(stickyBySchema.safeParse('metadata.tenant').success).toBe(true);
    expect(stickyBySchema.safeParse('metadata.').success).toBe(false);
    expect(stickyBySchema.safeParse('session').success).toBe(false);
  });
});
