import { Document, visit } from 'yaml';

import { DeploymentRow } from '../registry/deployments/deployments.repository';
import { PromptEntity } from '../registry/prompts/prompt.entity';
import { chooseDeployed, isSplitItem } from './export-deploys';

const prompt = Object.assign(new PromptEntity(), { slug: 's' });
const environments = ['preview', 'staging', 'production', 'qa'];

function row(environment: string, version: number, split: DeploymentRow['split'] = null, rules: DeploymentRow['split_rules'] = null) {
  return {
    environment,
    version,
    version_id: `id-${version}`,
    split,
    sticky_by: split ? 'user' : null,
    split_rules: rules,
  } as DeploymentRow;
}

describe('export: deploy entries', () => {
  it('shows the version most plain deployments run; writes every split, naming that version "file"', () => {
    const notes: string[] = [];
    const rows = [
      row('production', 1, [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ]),
      row('qa', 2),
      row('staging', 2),
      row('preview', 3),
    ];
    expect(chooseDeployed(prompt, rows, environments, notes)).toEqual({
      version: 2,
      versionId: 'id-2',
      deploy: [
        'staging',
        {
          environment: 'production',
          split: [
            { version: 1, weight: 90 },
            { version: 'file', weight: 10 },
          ],
          stickyBy: 'user',
        },
        'qa',
      ],
    });
    expect(notes).toEqual(['s: preview runs v3, not v2 as in this file; apply leaves preview as it is']);
  });

  it('with splits only, shows the newest version an arm runs (found by its number), rules named as the arms are', () => {
    const split = [
      { version: 4, weight: 1 },
      { version: 6, weight: 0 },
    ];
    const chosen = chooseDeployed(prompt, [row('production', 4, split, [{ version: 6, user: 'bob' }])], environments, []);
    expect(chosen).toEqual({
      version: 6,
      versionId: undefined,
      deploy: [
        {
          environment: 'production',
          split: [
            { version: 4, weight: 1 },
            { version: 'file', weight: 0 },
          ],
          stickyBy: 'user',
          rules: [{ version: 'file', user: 'bob' }],
        },
      ],
    });
  });

  it("writes a split's guards as stored, defaults filled in; none when it has none", () => {
    const guards = [{ metric: 'error_rate' as const, maxIncrease: 2, minCalls: 100 }];
    const split = [
      { version: 1, weight: 90 },
      { version: 2, weight: 10 },
    ];
    const chosen = chooseDeployed(prompt, [{ ...row('production', 1, split), guards }, row('qa', 1, split)], environments, []);
    expect(chosen.deploy).toEqual([
      {
        environment: 'production',
        split: [
          { version: 1, weight: 90 },
          { version: 'file', weight: 10 },
        ],
        stickyBy: 'user',
        guards,
      },
      {
        environment: 'qa',
        split: [
          { version: 1, weight: 90 },
          { version: 'file', weight: 10 },
        ],
        stickyBy: 'user',
      },
    ]);
  });

  it("writes a split's arms and rules on one line each, and nothing else", () => {
    const doc = new Document({
      prompts: [
        {
          slug: 's',
          tools: [{ split: [{ a: 1 }] }],
          deploy: [
            'qa',
            {
              environment: 'production',
              split: [{ version: 1, weight: 1 }],
              rules: [{ version: 1, user: 'u' }],
              guards: [{ metric: 'error_rate', maxIncrease: 2, minCalls: 50 }],
            },
          ],
        },
      ],
    });
    visit(doc, { Map: (_, node, path) => void (isSplitItem(path) && (node.flow = true)) });
    expect(doc.toString()).toContain(
      '        split:\n          - { version: 1, weight: 1 }\n        rules:\n          - { version: 1, user: u }\n' +
        '        guards:\n          - { metric: error_rate, maxIncrease: 2, minCalls: 50 }\n',
    );
    expect(doc.toString()).toContain('      - split:\n          - a: 1\n');
  });
});
