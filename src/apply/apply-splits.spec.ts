import { PromptEntity } from '../registry/prompts/prompt.entity';
import { parseApplyText } from './apply-file.parser';
import { deployReferenceIssues } from './apply-splits';
import { ApplySummary, describeSummary } from './apply-summary';

const withDeploy = (deploy: string) => `workspace: acme
project: support
environments: [staging, production, qa]
prompts:
  - slug: s
    model: echo
    template: [{ role: system, content: hi }]
    deploy:
${deploy}`;

const issuesOf = (text: string) => {
  const r = parseApplyText(text);
  return r.ok ? [] : r.issues;
};

describe('parley.yaml: splits under deploy', () => {
  it('takes environment slugs and splits side by side, with the API defaults, and "file" for the file\'s version', () => {
    const r = parseApplyText(
      withDeploy(`      - staging
      - environment: production
        split: [{ version: 1, weight: 90 }, { version: file, weight: 10 }]
      - environment: qa
        split: [{ version: file, weight: 1 }, { version: 2, weight: 1 }]
        stickyBy: metadata.tenant
        rules: [{ version: file, metadata: { tier: internal } }, { version: 2, user: bob }]
`),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.file.prompts[0].declared.deploy).toEqual([
      'staging',
      {
        environment: 'production',
        split: [
          { version: 1, weight: 90 },
          { version: 'file', weight: 10 },
        ],
        stickyBy: 'thread',
        rules: [],
      },
      {
        environment: 'qa',
        split: [
          { version: 'file', weight: 1 },
          { version: 2, weight: 1 },
        ],
        stickyBy: 'metadata.tenant',
        rules: [
          { version: 'file', metadata: { tier: 'internal' } },
          { version: 2, user: 'bob' },
        ],
      },
    ]);
    expect(r.file.references.prompts[0].deploy).toEqual([
      { path: ['deploy', 0], environment: 'staging', versions: [] },
      {
        path: ['deploy', 1, 'environment'],
        environment: 'production',
        versions: [{ path: ['deploy', 1, 'split', 0, 'version'], version: 1 }],
      },
      { path: ['deploy', 2, 'environment'], environment: 'qa', versions: [{ path: ['deploy', 2, 'split', 1, 'version'], version: 2 }] },
    ]);
  });

  it('validates a split as the API does, reporting every field at its path and line', () => {
    const issues = issuesOf(
      withDeploy(`      - 3
      - environment: production
        split:
          - { version: 1, weight: 90 }
          - { version: latest, weight: 10 }
          - { version: 2, weight: 20000, share: 1 }
        stickyBy: users
        rules: [{ version: file }]
      - { environment: qa, version: 2 }
      - { environment: staging, split: [{ version: file, weight: 0 }] }
      - { environment: staging, split: [{ version: 1, weight: 1 }, { version: 1, weight: 2 }], stickyBy: none }
      - { split: [] }
`),
    );
    expect(issues).toEqual([
      'prompts[0].deploy[0] (line 9): Expected an environment slug, or a split: {environment, split: [{version, weight}], stickyBy?, rules?, guards?}',
      `prompts[0].deploy[1].split[1].version (line 13): Expected a version number of the prompt, or "file" for this file's content`,
      'prompts[0].deploy[1].split[2].weight (line 14): Too big: expected number to be <=10000',
      'prompts[0].deploy[1].split[2] (line 14): Unrecognized key: "share"',
      'prompts[0].deploy[1].stickyBy (line 15): Expected "thread", "user", "none" or "metadata.<key>"',
      'prompts[0].deploy[1].rules[0] (line 16): Expected a `user` or `metadata` to match',
      "prompts[0].deploy[2].version (line 17): a plain deploy is the environment's slug alone (`- qa`), which deploys this file's content; versions are named in a split's arms",
      'prompts[0].deploy[3].split (line 18): Expected at least one arm with a weight above 0',
      'prompts[0].deploy[4].split (line 19): Expected each version once',
      'prompts[0].deploy[5].environment (line 20): Required',
      'prompts[0].deploy[5].split (line 20): Expected at least one arm',
      'prompts[0].deploy[4].environment (line 19): environment "staging" is already listed at prompts[0].deploy[3].environment',
    ]);
  });

  it('takes guards on a split as the API does: defaults filled in, each problem at its path and line', () => {
    const r = parseApplyText(
      withDeploy(`      - environment: production
        split: [{ version: 1, weight: 90 }, { version: file, weight: 10 }]
        guards:
          - { metric: error_rate, maxIncrease: 2 }
          - { metric: feedback, name: helpful, min: 0.6, minCount: 20 }
`),
    );
    if (!r.ok) throw new Error(r.issues.join('\n'));
    expect(r.file.prompts[0].declared.deploy[0]).toMatchObject({
      guards: [
        { metric: 'error_rate', maxIncrease: 2, minCalls: 100 },
        { metric: 'feedback', name: 'helpful', min: 0.6, minCount: 20 },
      ],
    });
    const issues = issuesOf(
      withDeploy(`      - environment: production
        split: [{ version: 1, weight: 90 }, { version: file, weight: 10 }]
        guards:
          - { metric: error_rate, maxIncrease: 120 }
          - { metric: latency_p99, maxRatio: 2 }
          - { metric: feedback, name: helpful, min: low }
`),
    );
    expect(issues).toEqual([
      'prompts[0].deploy[0].guards[0].maxIncrease (line 12): Expected percentage points from 0 to 100',
      expect.stringMatching(/^prompts\[0\]\.deploy\[0\]\.guards\[1\]\.metric \(line 13\): Expected a guard: /),
      'prompts[0].deploy[0].guards[2].min (line 14): Expected a number',
    ]);
  });

  it('takes a rule only for an arm, named as the split names it', () => {
    const issues = issuesOf(
      withDeploy(`      - environment: production
        split: [{ version: 1, weight: 90 }, { version: file, weight: 10 }]
        rules:
          - { version: file, user: alice }
          - { version: 3, user: bob }
`),
    );
    expect(issues).toEqual(['prompts[0].deploy[0].rules[1].version (line 13): 3 is not an arm of the split']);
  });

  it('refuses version numbers the prompt does not have, and any number for a prompt new in the file', () => {
    const r = parseApplyText(
      withDeploy(`      - { environment: production, split: [{ version: 2, weight: 9 }, { version: 3, weight: 1 }, { version: file, weight: 1 }] }
      - { environment: canary, split: [{ version: 1, weight: 1 }] }
`),
    );
    if (!r.ok) throw new Error(r.issues.join('\n'));
    const environments = new Set(['staging', 'production', 'qa']);
    const existing = new Map([['s', Object.assign(new PromptEntity(), { slug: 's', lastVersion: 2 })]]);
    expect(deployReferenceIssues(r.file.references, environments, existing)).toEqual([
      `prompts[0].deploy[0].split[1].version (line 9): "s" has no version 3 (its newest is 2); "file" names the content of this file`,
      'prompts[0].deploy[1].environment (line 10): no environment "canary": list it under environments',
    ]);
    expect(deployReferenceIssues(r.file.references, environments, new Map())).toEqual([
      `prompts[0].deploy[0].split[0].version (line 9): "s" has no versions yet; "file" names the content of this file`,
      `prompts[0].deploy[0].split[1].version (line 9): "s" has no versions yet; "file" names the content of this file`,
      'prompts[0].deploy[1].environment (line 10): no environment "canary": list it under environments',
      `prompts[0].deploy[1].split[0].version (line 10): "s" has no versions yet; "file" names the content of this file`,
    ]);
  });

  it('says a split deploy in the summary with its arms', () => {
    const unchanged = { slug: 'a', action: 'unchanged' as const };
    const summary: ApplySummary = {
      workspace: unchanged,
      project: unchanged,
      environments: [],
      providers: [],
      prompts: [],
      deployments: [
        { slug: 's', environment: 'staging', version: 2, deploymentVersion: 1, action: 'deployed' },
        {
          slug: 's',
          environment: 'production',
          version: 1,
          deploymentVersion: 4,
          action: 'deployed',
          split: [
            { version: 1, weight: 90 },
            { version: 2, weight: 10 },
          ],
          stickyBy: 'user',
          rules: [{ version: 2, user: 'bob' }],
          guards: [{ metric: 'error_rate', maxIncrease: 2, minCalls: 100 }],
        },
      ],
      graders: [],
      datasets: [],
      gates: [],
      changed: true,
    };
    expect(describeSummary(summary)).toBe(
      [
        'Applied to a/a:',
        '  > s v2 deployed to staging (deployment 1)',
        '  > s split v1:90 v2:10 deployed to production (deployment 4; sticky by user; 1 rule; 1 guard)',
      ].join('\n'),
    );
  });
});
