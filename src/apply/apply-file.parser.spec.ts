import { formatPath, parseApplyText, validateApplyDocument } from './apply-file.parser';
import { describeSummary } from './apply-summary';

const minimal = `workspace: acme
project: support
prompts:
  - slug: s
    model: echo
    template:
      - role: system
        content: "For {{audience}}"
`;

describe('parseApplyText', () => {
  it('reports an alias without its anchor, and too many alias expansions, as file errors (found by the fuzz test)', () => {
    expect(parseApplyText('*VSkK-S;')).toEqual({ ok: false, issues: [expect.stringMatching(/^\(file\) Unresolved alias .*VSkK-S;/)] });
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 6 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    const result = parseApplyText(bomb);
    expect(result.ok).toBe(false);
  });

  it('fills in the defaults of the file format', () => {
    const r = parseApplyText(minimal);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.file.environments).toEqual(['preview', 'staging', 'production']);
    expect(r.file.providers).toEqual([]);
    expect(r.file.prompts[0].declared).toMatchObject({ kind: 'prompt', deploy: [] });
    // The kind's content defaults (the provider "local" among them) are filled in where the content is prepared, as for the API.
    expect(r.file.prompts[0].prepared.content).toMatchObject({ provider: 'local', parameters: {}, tools: [], variables: {} });
    expect(r.file.prompts[0].prepared.declaredVariables).toEqual(['audience']);
  });

  it("takes a routing block as the API does: provider and model from its first target, each target's provider a reference", () => {
    const routed = minimal.replace(
      '    model: echo',
      '    routing:\n      targets:\n        - { provider: gateway, model: gpt-4o-mini }\n        - { provider: local, model: echo }',
    );
    const r = parseApplyText(routed);
    expect(r.ok && r.file.prompts[0].prepared.content).toMatchObject({
      provider: 'gateway',
      model: 'gpt-4o-mini',
      routing: { strategy: 'priority', targets: [{ provider: 'gateway' }, { provider: 'local' }] },
    });
    expect(r.ok && r.file.references.prompts[0].targetProviders).toEqual(['gateway', 'local']);
    const disagreeing = parseApplyText(routed.replace('    routing:', '    model: echo\n    routing:'));
    expect(disagreeing).toEqual({
      ok: false,
      issues: ['prompts[0].model (line 5): must be the first routing target\'s ("gpt-4o-mini") or left out'],
      references: expect.anything(),
    });
    const neither = parseApplyText(minimal.replace('    model: echo\n', ''));
    expect(neither.ok ? [] : neither.issues).toEqual(['prompts[0].model (line 4): Required']);
  });

  it('takes scalar variable defaults as text', () => {
    const r = parseApplyText(minimal.replace('    model: echo', '    model: echo\n    variables: { n: 3, flag: true, s: x }'));
    expect(r.ok && r.file.prompts[0].declared.variables).toEqual({ n: '3', flag: 'true', s: 'x' });
  });

  it('reports a template written as a YAML mapping (unquoted {{…}}) at its line', () => {
    const r = parseApplyText(minimal.replace('content: "For {{audience}}"', 'content: {{audience}}'));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toEqual([expect.stringMatching(/^prompts\[0\]\.template\[0\]\.content \(line 8\): /)]);
  });

  it('rejects unknown keys at every level, and the built-in provider name', () => {
    const text = `workspace: acme
project: support
enviroments: [x]
providers:
  - { name: local, type: openai, apiKey: sk-123 }
`;
    const r = parseApplyText(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\(file\) \(line 1\): Unrecognized key: "enviroments"/),
        expect.stringMatching(/^providers\[0\] \(line 5\): Unrecognized key: "apiKey"/),
        expect.stringMatching(/^providers\[0\]\.name \(line 5\): Expected another name: "local" is the built-in provider/),
      ]),
    );
    expect(r.issues.join('\n')).not.toContain('sk-123');
  });

  it('rejects a top level that is not a mapping', () => {
    expect(parseApplyText('- a\n- b\n')).toEqual({ ok: false, issues: [expect.stringMatching(/^\(file\) \(line 1\): /)] });
    expect(validateApplyDocument('text')).toEqual({ ok: false, issues: [expect.stringMatching(/^\(file\): /)] });
  });
});

describe('formatPath and describeSummary', () => {
  it('writes paths as in the file', () => {
    expect(formatPath(['prompts', 0, 'template', 1, 'content'])).toBe('prompts[0].template[1].content');
    expect(formatPath([])).toBe('');
  });

  it('says when nothing changed', () => {
    const unchanged = { slug: 'a', action: 'unchanged' as const };
    expect(
      describeSummary({
        workspace: unchanged,
        project: unchanged,
        environments: [],
        providers: [],
        prompts: [],
        deployments: [],
        graders: [],
        datasets: [],
        gates: [],
        changed: false,
      }),
    ).toBe('No changes: a/a already matches the file.');
  });

  it('names the deploys waiting for approval, new or asked before (docs/security.md, "Approvals")', () => {
    const unchanged = { slug: 'a', action: 'unchanged' as const };
    const base = { workspace: unchanged, project: unchanged, environments: [], providers: [], prompts: [], deployments: [] };
    const rest = { graders: [], datasets: [], gates: [] };
    const id = '01990000-0000-7000-8000-0000000000d1';
    const request = { id, slug: 'greet', environment: 'production', version: 2 };
    expect(describeSummary({ ...base, ...rest, deploymentRequests: [{ ...request, action: 'created' }], changed: true })).toBe(
      ['Applied to a/a:', `  ? greet v2 to production: waiting for approval (deployment request ${id})`].join('\n'),
    );
    const split = [
      { version: 1, weight: 90 },
      { version: 2, weight: 10 },
    ];
    expect(describeSummary({ ...base, ...rest, deploymentRequests: [{ ...request, split, action: 'unchanged' }], changed: false })).toBe(
      [
        'No changes to a/a; still waiting for approval:',
        `  ? greet split v1:90 v2:10 to production: waiting for approval (deployment request ${id}, asked before)`,
      ].join('\n'),
    );
  });
});
