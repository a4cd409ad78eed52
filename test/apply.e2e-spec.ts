import { parse } from 'yaml';

import { ApplyService } from '../src/apply/apply.service';
import { ExportService } from '../src/apply/export.service';
import { RegistryService } from '../src/registry/registry.service';
import { demoDocument } from '../src/setup/demo-seed';
import { printFirstRunBanner } from '../src/setup/first-run-banner';
import { InitService } from '../src/setup/init.service';
import { createProject, TestProject, uniqueSlug } from './support/factories';
import { createVersion, deploy, versionBody } from './support/registry-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const admin = { 'X-API-Key': TEST_ADMIN_KEY };

function file(workspace: string, project: string, summarize = 'Summarize for {{audience}}.') {
  return `
workspace: ${workspace}
project: ${project}
environments: [preview, staging, production, qa]
providers:
  - name: gateway
    type: openai
    baseUrl: https://llm.example.invalid/v1
    apiKeyEnv: PARLEY_PROVIDER_GATEWAY_KEY
prompts:
  - slug: summarize
    kind: prompt
    provider: local
    model: echo
    parameters: { temperature: 0.2, max_tokens: 200, stop: [END] }
    tools: []
    variables: { audience: engineers, count: 3 }
    template:
      - { role: system, content: "${summarize}" }
      - role: user
        content: |
          Text:
          {{text}}
    deploy: [production, qa]
  - slug: helper
    kind: assistant
    provider: gateway
    model: gpt-4o-mini
    tools:
      - type: function
        function: { name: lookup, parameters: { type: object, properties: { q: { type: string } } } }
    parameters: { tool_choice: auto }
    template:
      - { role: system, content: "You help with {{topic}}." }
    deploy: [staging]
`;
}

/** Every registry row of a project, to prove that a refused apply changed nothing. */
async function snapshot(t: TestApp, projectId: string) {
  const rows: Record<string, unknown[]> = {};
  for (const table of ['environments', 'prompts', 'prompt_versions', 'deployments', 'provider_credentials']) {
    rows[table] = await t.dataSource.query(`SELECT * FROM ${table} WHERE project_id = $1 ORDER BY id`, [projectId]);
  }
  return rows;
}

async function projectKey(t: TestApp, workspace: string, project: string): Promise<TestProject> {
  const key = await t.http().post(`/v2/workspaces/${workspace}/projects/${project}/api-keys`).set(admin).send({}).expect(200);
  return { workspace, project, projectId: key.body.projectId, key: key.body.key, keyId: key.body.id };
}

describe('parley apply (POST /v2/apply) and export', () => {
  let t: TestApp;
  const applyYaml = (text: string, headers: Record<string, string> = admin) => t.http().post('/v2/apply').set(headers).send({ yaml: text });

  beforeAll(
    async () =>
      (t = await createTestApp({
        PARLEY_SECRET_KEY: 'apply-test-secret-key-0123456789abcdef',
        PROVIDER_KEY_BINDINGS: 'PARLEY_PROVIDER_GATEWAY_KEY=llm.example.invalid',
      })),
  );
  afterAll(() => t.close());

  // First in the file: on a fresh embedded database (PGlite) the database is still empty here.
  it('seeds a demo prompt and assistant on local/echo, deployed to production, on a first run', async () => {
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM workspaces');
    let workspace = 'default';
    if (n === 0) {
      const result = await t.app.get(InitService).initIfEmpty();
      expect(result).toMatchObject({
        created: true,
        demo: { prompt: 'demo-prompt', assistant: 'demo-assistant', environment: 'production' },
      });
      const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      printFirstRunBanner(result, 'http://127.0.0.1:3000');
      const banner = log.mock.calls.map((c) => String(c[0])).join('\n');
      log.mockRestore();
      expect(banner).toContain(`curl -s -X POST http://127.0.0.1:3000/default/default/demo-prompt/production -H "X-API-Key: $PARLEY_KEY"`);
      expect(banner).toContain('http://127.0.0.1:3000/default/default/demo-assistant/production');
      expect(banner).toContain('curl -s http://127.0.0.1:3000/v2/deployments');
    } else {
      // A shared PostgreSQL is never empty: seed the same document into a workspace of this test's own.
      workspace = uniqueSlug('ws');
      await t.app.get(ApplyService).applyDocument(demoDocument(workspace, 'default'), { kind: 'admin' });
    }
    const p = await projectKey(t, workspace, 'default');
    const registry = t.app.get(RegistryService);
    expect(await registry.resolveForInvoke(p.projectId, 'demo-prompt', 'production')).toMatchObject({
      kind: 'prompt',
      version: 1,
      provider: { name: 'local' },
      model: 'echo',
    });
    expect(await registry.resolveForInvoke(p.projectId, 'demo-assistant', 'production')).toMatchObject({
      kind: 'assistant',
      version: 1,
      model: 'echo',
    });
  });

  it('creates workspace, project, environments, providers, prompts and deployments, visible through the REST API', async () => {
    const ws = uniqueSlug('ws');
    const res = await applyYaml(file(ws, 'support')).expect(200);
    expect(res.body).toMatchObject({
      workspace: { slug: ws, action: 'created' },
      project: { slug: 'support', action: 'created' },
      providers: [{ name: 'gateway', action: 'created' }],
      prompts: [
        { slug: 'summarize', kind: 'prompt', action: 'created', version: 1 },
        { slug: 'helper', kind: 'assistant', action: 'created', version: 1 },
      ],
      deployments: [
        { slug: 'summarize', environment: 'production', version: 1, deploymentVersion: 1, action: 'deployed' },
        { slug: 'summarize', environment: 'qa', version: 1, deploymentVersion: 1, action: 'deployed' },
        { slug: 'helper', environment: 'staging', version: 1, deploymentVersion: 1, action: 'deployed' },
      ],
      changed: true,
    });
    expect(res.body.environments.map((e: { slug: string }) => e.slug).sort()).toEqual(['preview', 'production', 'qa', 'staging']);

    const p = await projectKey(t, ws, 'support');
    const deployments = await t.http().get('/v2/deployments').set('X-API-Key', p.key).expect(200);
    expect(deployments.body.data.map((d: { slug: string; environment: string }) => `${d.slug}@${d.environment}`)).toEqual([
      'helper@staging',
      'summarize@production',
      'summarize@qa',
    ]);
    const version = await t.http().get('/v2/prompts/summarize/versions/1').set('X-API-Key', p.key).expect(200);
    expect(version.body).toMatchObject({
      variables: { audience: 'engineers', count: '3' },
      parameters: { temperature: 0.2, max_tokens: 200, stop: ['END'] },
      declaredVariables: ['audience', 'count', 'text'],
      message: 'parley apply',
    });
    expect(version.body.template[1].content).toBe('Text:\n{{text}}\n');
  });

  it('is idempotent: the same file again changes nothing and says so', async () => {
    const ws = uniqueSlug('ws');
    await applyYaml(file(ws, 'p')).expect(200);
    const p = await projectKey(t, ws, 'p');
    const before = await snapshot(t, p.projectId);
    const again = await applyYaml(file(ws, 'p')).expect(200);
    expect(again.body.changed).toBe(false);
    const actions = [
      again.body.workspace,
      again.body.project,
      ...again.body.environments,
      ...again.body.providers,
      ...again.body.prompts,
      ...again.body.deployments,
    ].map((x) => x.action);
    expect(new Set(actions)).toEqual(new Set(['unchanged']));
    expect(await snapshot(t, p.projectId)).toEqual(before);
  });

  it('changing one template makes exactly one new version and redeploys it; reverting reuses the old version', async () => {
    const ws = uniqueSlug('ws');
    await applyYaml(file(ws, 'p')).expect(200);
    const changed = await applyYaml(file(ws, 'p', 'Summarize briefly for {{audience}}.')).expect(200);
    expect(changed.body.prompts).toEqual([
      { slug: 'summarize', kind: 'prompt', action: 'versioned', version: 2 },
      { slug: 'helper', kind: 'assistant', action: 'unchanged', version: 1 },
    ]);
    expect(changed.body.deployments.filter((d: { action: string }) => d.action === 'deployed')).toEqual([
      { slug: 'summarize', environment: 'production', version: 2, deploymentVersion: 2, action: 'deployed' },
      { slug: 'summarize', environment: 'qa', version: 2, deploymentVersion: 2, action: 'deployed' },
    ]);
    const p = await projectKey(t, ws, 'p');
    const versions = await t.http().get('/v2/prompts/summarize/versions').set('X-API-Key', p.key).expect(200);
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    const reverted = await applyYaml(file(ws, 'p')).expect(200);
    expect(reverted.body.prompts[0]).toEqual({ slug: 'summarize', kind: 'prompt', action: 'unchanged', version: 1 });
    expect(reverted.body.deployments[0]).toMatchObject({ environment: 'production', version: 1, deploymentVersion: 3, action: 'deployed' });
    expect((await t.http().get('/v2/prompts/summarize').set('X-API-Key', p.key).expect(200)).body.latestVersion).toBe(2);
  });

  it('validates the whole file first and reports every error with its path and line, changing nothing', async () => {
    const ws = uniqueSlug('ws');
    await applyYaml(file(ws, 'p')).expect(200);
    const p = await projectKey(t, ws, 'p');
    const before = await snapshot(t, p.projectId);
    const broken = `${file(ws, 'p', 'Changed {{audience}}')}
  - slug: broken-template
    model: echo
    template:
      - role: system
        content: "ok"
      - role: user
        content: "first line\\n{{#each items}} never closed"
  - slug: bad-shape
    model: echo
    parameters: { temperature: 7, temprature: 1 }
    template: []
    deploy: [production, production]
  - slug: summarize
    model: echo
    template: [{ role: system, content: hi }]
`;
    const res = await applyYaml(broken).expect(400);
    expect(res.body.error.message).toBe('Invalid apply file');
    const details: string[] = res.body.error.details;
    const expected = [
      /^prompts\[2\]\.template\[1\]\.content \(line 43\): template does not compile: .*line 2/,
      /^prompts\[3\]\.parameters\.temperature \(line 46\): Expected number between 0 and 2/,
      /^prompts\[3\]\.parameters \(line 46\): Unrecognized key: "temprature"/,
      /^prompts\[3\]\.template \(line 47\): Expected at least one message/,
      /^prompts\[4\]\.slug \(line 49\): slug "summarize" is already listed at prompts\[0\]\.slug/,
      /^prompts\[3\]\.deploy\[1\] \(line 48\): environment "production" is already listed at prompts\[3\]\.deploy\[0\]/,
    ];
    for (const pattern of expected) expect(details).toContainEqual(expect.stringMatching(pattern));
    expect(details).toHaveLength(expected.length);
    expect(await snapshot(t, p.projectId)).toEqual(before);

    // References the database cannot satisfy are reported together too, and also change nothing.
    const references = file(ws, 'p', 'Changed again {{audience}}')
      .replace('deploy: [staging]', 'deploy: [staging, canary]')
      .replace('provider: gateway', 'provider: nowhere')
      .replace('kind: assistant', 'kind: prompt');
    const refused = await applyYaml(references).expect(400);
    expect(refused.body.error.details).toEqual([
      expect.stringMatching(/^prompts\[1\]\.kind \(line \d+\): "helper" is an existing assistant/),
      expect.stringMatching(/^prompts\[1\]\.provider \(line \d+\): no provider "nowhere"/),
      expect.stringMatching(/^prompts\[1\]\.deploy\[1\] \(line \d+\): no environment "canary"/),
    ]);
    expect(await snapshot(t, p.projectId)).toEqual(before);

    // Mistakes of the file itself and references only the database can refute: one report, not two rounds.
    const both = references.replace('temperature: 0.2', 'temperature: 9').replace('type: openai', 'type: openia');
    const together = await applyYaml(both).expect(400);
    expect(together.body.error.details).toEqual([
      expect.stringMatching(/^providers\[0\]\.type \(line 7\): /),
      expect.stringMatching(/^prompts\[0\]\.parameters\.temperature \(line 15\): Expected number between 0 and 2/),
      expect.stringMatching(/^prompts\[1\]\.kind \(line \d+\): "helper" is an existing assistant/),
      // "gateway" is declared, if wrongly: reported once, as its own entry.
      expect.stringMatching(/^prompts\[1\]\.provider \(line \d+\): no provider "nowhere"/),
      expect.stringMatching(/^prompts\[1\]\.deploy\[1\] \(line \d+\): no environment "canary"/),
    ]);
    expect(await snapshot(t, p.projectId)).toEqual(before);
    // A project key of another project learns nothing about this one from a broken file.
    const other = await createProject(t);
    const foreign = await applyYaml(both, { 'X-API-Key': other.key }).expect(400);
    expect(foreign.body.error.details).toHaveLength(2);

    // A new workspace named in a broken file is not created either.
    const fresh = uniqueSlug('ws');
    await applyYaml(broken.replace(`workspace: ${ws}`, `workspace: ${fresh}`)).expect(400);
    await t.http().get(`/v2/workspaces/${fresh}/projects`).set(admin).expect(404);
  });

  it('reports YAML syntax errors in plain words at the line of the mistake', async () => {
    const res = await applyYaml(
      'workspace: a\nproject: b\nprompts:\n  - slug: x\n    template: [ { role: system, content: "unclosed }\n',
    ).expect(400);
    // The open quote swallows the closing brackets too: both are reported, at the line they open.
    expect(res.body.error.details).toEqual([
      '(file) (line 5): a quoted value is never closed; add the closing quote',
      '(file) (line 5): a { or [ opened here is not closed on its line; add the closing } or ]',
    ]);
    const dup = await applyYaml('workspace: a\nworkspace: b\nproject: c\n').expect(400);
    expect(dup.body.error.details).toEqual(['(file) (line 2): the key "workspace" appears twice in the same block; keep one']);
    const empty = await applyYaml('').expect(400);
    expect(empty.body.error.details).toEqual(['(file): the file is empty; expected workspace, project and prompts']);
  });

  it('accepts the document as JSON, and lets a project key apply to its own project only', async () => {
    const p = await createProject(t);
    const doc = {
      workspace: p.workspace,
      project: p.project,
      prompts: [{ slug: 'json-one', model: 'echo', template: [{ role: 'user', content: '{{q}}' }], deploy: ['production'] }],
    };
    const own = await t.http().post('/v2/apply').set('X-API-Key', p.key).send(doc).expect(200);
    expect(own.body.prompts).toEqual([{ slug: 'json-one', kind: 'prompt', action: 'created', version: 1 }]);
    const other = await createProject(t);
    const forbidden = await t.http().post('/v2/apply').set('X-API-Key', other.key).send(doc).expect(403);
    expect(forbidden.body).toEqual({ error: 'Forbidden', message: 'API key does not belong to this project' });
    await t
      .http()
      .post('/v2/apply')
      .set('X-API-Key', p.key)
      .send({ ...doc, workspace: uniqueSlug('ws') })
      .expect(403);
    await t.http().post('/v2/apply').send(doc).expect(401);
    const notObject = await t.http().post('/v2/apply').set(admin).send([1, 2]).expect(400);
    expect(notObject.body.error.details[0]).toMatch(/expected a JSON object/);
  });

  it('exports the project as deployed; applying the export is a no-op', async () => {
    const ws = uniqueSlug('ws');
    await applyYaml(file(ws, 'p')).expect(200);
    const p = await projectKey(t, ws, 'p');
    // Diverge: staging runs an older summarize, preview a newer one; plus an undeployed prompt and a stored key.
    await createVersion(t, p, 'summarize', versionBody('newer {{x}}'));
    await deploy(t, p, 'summarize', 'preview', 2);
    // And a split in staging: written with "file" for the version the file holds, the other arm by number.
    const split = [
      { version: 2, weight: 1 },
      { version: 1, weight: 3 },
    ];
    await t
      .http()
      .post('/v2/prompts/summarize/deployments')
      .set('X-API-Key', p.key)
      .send({ environment: 'staging', split, stickyBy: 'none', rules: [{ version: 1, user: 'bob' }] })
      .expect(200);
    await t.http().post('/v2/prompts').set('X-API-Key', p.key).send({ slug: 'draft' }).expect(200);
    await createVersion(
      t,
      p,
      'draft',
      versionBody('draft {{y}}', { tools: [{ type: 'function', function: { name: 'f' } }], parameters: { tool_choice: 'required' } }),
    );
    await t.http().post('/v2/prompts').set('X-API-Key', p.key).send({ slug: 'empty' }).expect(200);
    await t
      .http()
      .post('/v2/provider-credentials')
      .set('X-API-Key', p.key)
      .send({ name: 'vault', type: 'anthropic', apiKey: 'sk-never-exported-123' })
      .expect(200);

    const exported = await t.http().get('/v2/export').set('X-API-Key', p.key).expect(200);
    expect(exported.headers['content-type']).toMatch(/^application\/yaml/);
    const text = exported.text;
    expect(text).not.toContain('sk-never-exported-123');
    expect(text).toMatch(/note: summarize: preview runs v2, not v1/);
    expect(text).toMatch(/note: empty: has no versions yet/);
    expect(text).toMatch(/note: provider "vault": its API key is stored/);
    const doc = parse(text);
    expect(doc.prompts.map((x: { slug: string; deploy: string[] }) => [x.slug, x.deploy])).toEqual([
      ['draft', []],
      ['helper', ['staging']],
      [
        'summarize',
        [
          'production',
          'qa',
          {
            environment: 'staging',
            split: [
              { version: 2, weight: 1 },
              { version: 'file', weight: 3 },
            ],
            stickyBy: 'none',
            rules: [{ version: 'file', user: 'bob' }],
          },
        ],
      ],
    ]);

    const before = await snapshot(t, p.projectId);
    const roundTrip = await applyYaml(text, { 'X-API-Key': p.key }).expect(200);
    expect(roundTrip.body.changed).toBe(false);
    expect(await snapshot(t, p.projectId)).toEqual(before);

    // The same through the services the CLI uses.
    const viaService = await t.app.get(ExportService).exportProject(ws, 'p', { kind: 'admin' });
    expect(viaService).toBe(text);
    expect((await t.app.get(ApplyService).applyText(viaService, { kind: 'admin' })).changed).toBe(false);
    await t.http().get(`/v2/export?workspace=${ws}&project=p`).set(admin).expect(200);
    await t.http().get('/v2/export').set(admin).expect(400);
    await t.http().get(`/v2/export?workspace=${ws}&project=nope`).set(admin).expect(404);
    const other = await createProject(t);
    await t.http().get(`/v2/export?workspace=${ws}&project=p`).set('X-API-Key', other.key).expect(403);
  });

  it('runs concurrent applies of one new file to one consistent result', async () => {
    const ws = uniqueSlug('ws');
    const results = await Promise.all([1, 2, 3].map(() => applyYaml(file(ws, 'p'))));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const p = await projectKey(t, ws, 'p');
    const rows = await snapshot(t, p.projectId);
    expect(rows.prompt_versions).toHaveLength(2);
    expect(rows.deployments).toHaveLength(3);
  });
});
