import { parse } from 'yaml';

import { uniqueSlug } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const admin = { 'X-API-Key': TEST_ADMIN_KEY };

/** A file whose `answer` prompt routes over three targets; `targets` replaces its list. */
function file(workspace: string, targets = '') {
  return `
workspace: ${workspace}
project: p
providers:
  - { name: gateway, type: openai, baseUrl: https://llm.example.invalid/v1 }
  - { name: claude, type: anthropic, baseUrl: https://anthropic.example.invalid }
prompts:
  - slug: answer
    kind: assistant
    routing:
      strategy: weighted
      targets:
${
  targets ||
  `        - { provider: gateway, model: gpt-4o-mini, weight: 3 }
        - { provider: claude, model: claude-sonnet, weight: 1 }
        - { provider: local, model: echo, weight: 1, parameters: { temperature: 0.3 } }`
}
      fallbackOn: [rate_limit, timeout]
      firstTokenTimeoutMs: 5000
    cache: { ttlSeconds: 600 }
    template:
      - { role: system, content: "Answer {{question}}" }
    deploy: [production]
`;
}

/**
 * `routing` and `cache` in parley.yaml (docs/apply.md; docs/routing.md, "The routing block"): applied
 * as a version's own content, a change of targets is a new version, export writes them back so
 * export → apply is a no-op, and a target refused when saved is refused with its path and line.
 */
describe('parley apply and export: routing and the response cache', () => {
  let t: TestApp;
  const applyYaml = (text: string) => t.http().post('/v2/apply').set(admin).send({ yaml: text });
  const versionsOf = async (workspace: string) =>
    (await t.dataSource.query(
      `SELECT v.version, v.provider, v.model, v.routing, v.response_cache FROM prompt_versions v
       JOIN projects pr ON pr.id = v.project_id JOIN workspaces w ON w.id = pr.workspace_id
       WHERE w.slug = $1 ORDER BY v.version`,
      [workspace],
    )) as { version: number; provider: string; model: string; routing: { targets: object[] }; response_cache: unknown }[];

  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('applies the block, versions a change of targets, and exports it back as a no-op', async () => {
    const ws = uniqueSlug('route');
    const first = await applyYaml(file(ws)).expect(200);
    expect(first.body.prompts).toEqual([{ slug: 'answer', kind: 'assistant', action: 'created', version: 1 }]);
    const [v1] = await versionsOf(ws);
    expect(v1).toMatchObject({
      provider: 'gateway',
      model: 'gpt-4o-mini',
      routing: {
        strategy: 'weighted',
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini', weight: 3 },
          { provider: 'claude', model: 'claude-sonnet', weight: 1 },
          { provider: 'local', model: 'echo', weight: 1, parameters: { temperature: 0.3 } },
        ],
        fallbackOn: ['rate_limit', 'timeout'],
        firstTokenTimeoutMs: 5000,
      },
      response_cache: { ttlSeconds: 600 },
    });
    expect((await applyYaml(file(ws)).expect(200)).body.changed).toBe(false);

    const exported = (await t.http().get(`/v2/export?workspace=${ws}&project=p`).set(admin).expect(200)).text;
    expect(exported).toContain('- {provider: gateway, model: gpt-4o-mini, weight: 3}');
    const entry = (parse(exported) as { prompts: Record<string, unknown>[] }).prompts[0];
    expect(entry).not.toHaveProperty('provider');
    expect(entry).not.toHaveProperty('model');
    expect(entry).toMatchObject({ routing: v1.routing, cache: { ttlSeconds: 600 } });
    const again = await applyYaml(exported).expect(200);
    expect(again.body).toMatchObject({ changed: false, prompts: [{ slug: 'answer', action: 'unchanged', version: 1 }] });

    const reordered = `        - { provider: claude, model: claude-sonnet, weight: 1 }
        - { provider: gateway, model: gpt-4o-mini, weight: 3 }`;
    const changed = await applyYaml(file(ws, reordered)).expect(200);
    expect(changed.body.prompts).toEqual([{ slug: 'answer', kind: 'assistant', action: 'versioned', version: 2 }]);
    expect(changed.body.deployments).toEqual([expect.objectContaining({ environment: 'production', version: 2 })]);
    const rows = await versionsOf(ws);
    expect(rows.map((v) => [v.version, v.provider, v.routing.targets.length])).toEqual([
      [1, 'gateway', 3],
      [2, 'claude', 2],
    ]);
  });

  it('refuses a target with no such provider, and one that cannot honour the version, with the path and line; nothing is written', async () => {
    const ws = uniqueSlug('route-bad');
    const missing = `        - { provider: gateway, model: gpt-4o-mini, weight: 1 }
        - { provider: nowhere, model: m, weight: 1 }`;
    const refused = await applyYaml(file(ws, missing)).expect(400);
    expect(refused.body.error).toEqual({
      message: 'Invalid apply file',
      details: ['prompts[0].routing.targets[1].provider (line 14): no provider "nowhere": declare it under providers, or use "local"'],
    });

    const json = file(ws).replace('    template:', '    parameters: { response_format: { type: json_object } }\n    template:');
    const unable = await applyYaml(json).expect(400);
    expect(unable.body.error.details).toEqual([
      expect.stringMatching(
        /^prompts\[0\]\.routing\.targets\[1\] \(line 14\): provider "claude" is of type anthropic, which cannot honour response_format "json_object"/,
      ),
      expect.stringMatching(
        /^prompts\[0\]\.routing\.targets\[2\] \(line 15\): provider "local" is of type local, which cannot honour response_format "json_object"/,
      ),
    ]);
    const written = await t.dataSource.query('SELECT 1 FROM workspaces WHERE slug = $1', [ws]);
    expect(written).toEqual([]);
  });

  it('refuses a routing block that is not the contract, at its path', async () => {
    const ws = uniqueSlug('route-shape');
    const text = file(ws).replace('strategy: weighted', 'strategy: fastest');
    const res = await applyYaml(text).expect(400);
    expect(res.body.error.details).toEqual([expect.stringMatching(/^prompts\[0\]\.routing\.strategy \(line 11\): /)]);
  });
});
