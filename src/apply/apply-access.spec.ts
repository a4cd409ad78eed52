import { assertMayApplyAccess } from './apply-access';
import { parseApplyText } from './apply-file.parser';
import { ApplySummary, describeSummary } from './apply-summary';

const withAccess = (access: string) => `workspace: acme
project: support
${access}`;

describe("parley.yaml's access block", () => {
  it('reads groups and members into roles; an empty block and absent parts are empty maps; no block is none', () => {
    const r = parseApplyText(withAccess('access:\n  groups: { "Support Leads": deployer }\n  members: { ana@example.com: editor }'));
    expect(r.ok && r.file.access).toEqual({ groups: { 'Support Leads': 'deployer' }, members: { 'ana@example.com': 'editor' } });
    const empty = parseApplyText(withAccess('access: {}'));
    expect(empty.ok && empty.file.access).toEqual({ groups: {}, members: {} });
    const none = parseApplyText(withAccess(''));
    expect(none.ok && none.file.access).toBeUndefined();
  });

  it('reports every bad entry at its key and line', () => {
    const r = parseApplyText(
      withAccess('access:\n  groups:\n    ops: root\n  members:\n    ana: viewer\n    a@b.co: viewer\n    A@B.co: admin'),
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues).toEqual([
      'access.groups.ops (line 5): Expected a role: viewer, editor, deployer, admin',
      'access.members.ana (line 7): Expected an e-mail address',
      'access.members.A@B.co (line 9): "a@b.co" is the same: list it once',
    ]);
  });

  it('needs members:manage, and gives no role beyond the caller; the operator (no scopes) may do anything', () => {
    const access = { groups: { ops: 'deployer' as const }, members: {} };
    expect(() => assertMayApplyAccess(['registry:write'], access)).toThrow(
      'Access in parley.yaml needs an API key with the members:manage scope',
    );
    expect(() => assertMayApplyAccess(['members:manage', 'registry:read'], access)).toThrow(
      /^The deployer role holds scopes this caller does not hold: /,
    );
    expect(() => assertMayApplyAccess(null, { groups: {}, members: { 'a@b.co': 'admin' } })).not.toThrow();
    expect(() => assertMayApplyAccess(undefined, { groups: {}, members: { 'a@b.co': 'admin' } })).not.toThrow();
  });

  it('describes the changes one line each', () => {
    const summary = {
      workspace: { slug: 'acme', action: 'unchanged' },
      project: { slug: 'support', action: 'unchanged' },
      environments: [],
      providers: [],
      prompts: [],
      deployments: [],
      graders: [],
      datasets: [],
      gates: [],
      access: {
        groups: [
          { group: 'leads', role: 'deployer', action: 'created' },
          { group: 'ops', role: 'viewer', action: 'unchanged' },
        ],
        members: [{ email: 'ana@example.com', role: 'editor', action: 'removed' }],
      },
      changed: true,
    } satisfies ApplySummary;
    expect(describeSummary(summary)).toBe(
      [
        'Applied to acme/support:',
        '  + group leads: deployer in this project (created)',
        '  - member ana@example.com: editor in this project (removed)',
      ].join('\n'),
    );
  });
});
