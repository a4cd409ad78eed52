import { parse } from 'yaml';

import { uniqueSlug } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** parley.yaml with graders, a dataset and a gate on production; the prompt is deployed where `deploy` says. */
function file(workspace: string, opts: { items?: string; deploy?: string; extra?: string; description?: string } = {}) {
  return `
workspace: ${workspace}
project: evals
graders:
  - name: exact
    config: { type: equals }
  - name: starts-upper
    threshold: 0.5
    config: { type: regex, pattern: "^[A-Z]" }
datasets:
  - name: cities
    description: ${opts.description ?? 'Capital cities'}
    items:
${
  opts.items ??
  `      - { variables: { city: Paris }, expected: Paris }
      - { variables: { city: Oslo }, expected: Oslo, metadata: { region: north } }
      - variables: { city: Lima }
        messages: [{ role: user, content: "Lima?" }]
        expected: { name: Lima }`
}
gates:
  - environment: production
    dataset: cities
    minScores: { exact: 0.5 }
prompts:
  - slug: city
    model: echo
    template:
      - { role: user, content: "{{city}}" }
    deploy: [${opts.deploy ?? 'staging'}]
${opts.extra ?? ''}`;
}

/** Every row the file's sections write, to show that a refused apply kept nothing. */
async function snapshot(t: TestApp, projectId: string): Promise<Record<string, string[]>> {
  const tables = [
    'graders',
    'datasets',
    'dataset_versions',
    'dataset_items',
    'environment_gates',
    'prompts',
    'prompt_versions',
    'deployments',
  ];
  const rows: Record<string, string[]> = {};
  for (const table of tables) {
    const found: unknown[] = await t.dataSource.query(`SELECT * FROM ${table} WHERE project_id = $1`, [projectId]);
    rows[table] = found.map((row) => JSON.stringify(row)).sort();
  }
  return rows;
}

describe('parley.yaml: graders, datasets and deploy gates (apply and export)', () => {
  let t: TestApp;
  let workspace: string;
  let projectId: string;
  const admin = () => ({ 'X-API-Key': TEST_ADMIN_KEY, 'X-Parley-Project': `${workspace}/evals` });
  const apply = (yaml: string) => t.http().post('/v2/apply').set('X-API-Key', TEST_ADMIN_KEY).send({ yaml });
  const get = async (url: string) => (await t.http().get(url).set(admin()).expect(200)).body;

  beforeAll(async () => {
    t = await createTestApp();
    workspace = uniqueSlug('evals');
  });
  afterAll(() => t.close());

  it('applies graders, a dataset and a gate; a second apply and the apply of the export change nothing', async () => {
    const first = await apply(file(workspace)).expect(200);
    expect(first.body).toMatchObject({
      graders: [
        { name: 'exact', action: 'created' },
        { name: 'starts-upper', action: 'created' },
      ],
      datasets: [{ name: 'cities', action: 'created', version: 1, itemCount: 3, added: 3, removed: 0 }],
      gates: [{ environment: 'production', dataset: 'cities', action: 'created' }],
      changed: true,
    });
    projectId = (
      await t.dataSource.query('SELECT id FROM projects WHERE slug = $1 AND workspace_id = (SELECT id FROM workspaces WHERE slug = $2)', [
        'evals',
        workspace,
      ])
    )[0].id;
    expect((await get('/v2/graders/starts-upper')).threshold).toBe(0.5);
    expect(await get('/v2/environments/production/gate')).toEqual({
      environment: 'production',
      dataset: 'cities',
      minScores: { exact: 0.5 },
    });
    const items = (await get('/v2/datasets/cities/items')).data;
    expect(items.map((i: { variables: object; expected: unknown }) => [i.variables, i.expected])).toEqual([
      [{ city: 'Paris' }, 'Paris'],
      [{ city: 'Oslo' }, 'Oslo'],
      [{ city: 'Lima' }, { name: 'Lima' }],
    ]);

    const again = await apply(file(workspace)).expect(200);
    expect(again.body).toMatchObject({
      graders: [
        { name: 'exact', action: 'unchanged' },
        { name: 'starts-upper', action: 'unchanged' },
      ],
      datasets: [{ name: 'cities', action: 'unchanged', version: 1, itemCount: 3 }],
      gates: [{ environment: 'production', action: 'unchanged' }],
      changed: false,
    });

    const exported = (await t.http().get(`/v2/export?workspace=${workspace}&project=evals`).set('X-API-Key', TEST_ADMIN_KEY).expect(200))
      .text;
    const doc = parse(exported);
    expect(doc.graders).toEqual([
      { name: 'exact', config: { type: 'equals', ignoreCase: false } },
      { name: 'starts-upper', threshold: 0.5, config: { type: 'regex', ignoreCase: false, pattern: '^[A-Z]' } },
    ]);
    expect(doc.datasets).toEqual([
      {
        name: 'cities',
        description: 'Capital cities',
        items: [
          { variables: { city: 'Paris' }, expected: 'Paris' },
          { variables: { city: 'Oslo' }, expected: 'Oslo', metadata: { region: 'north' } },
          { variables: { city: 'Lima' }, messages: [{ role: 'user', content: 'Lima?' }], expected: { name: 'Lima' } },
        ],
      },
    ]);
    expect(doc.gates).toEqual([{ environment: 'production', dataset: 'cities', minScores: { exact: 0.5 } }]);
    const roundTrip = await apply(exported).expect(200);
    expect(roundTrip.body.changed).toBe(false);
  });

  it('a changed dataset makes exactly one new version; items the file still holds keep their ids', async () => {
    const before: { id: string; variables: { city: string } }[] = (await get('/v2/datasets/cities/items')).data;
    const items = `      - { variables: { city: Paris }, expected: Paris }
      - { variables: { city: Oslo }, expected: OSLO, metadata: { region: north } }
      - variables: { city: Lima }
        messages: [{ role: user, content: "Lima?" }]
        expected: { name: Lima }
      - { variables: { city: Rome }, expected: Rome }`;
    const changed = await apply(file(workspace, { items })).expect(200);
    expect(changed.body.datasets).toEqual([{ name: 'cities', action: 'versioned', version: 2, itemCount: 4, added: 2, removed: 1 }]);
    expect(changed.body.graders.every((g: { action: string }) => g.action === 'unchanged')).toBe(true);
    const versions = (await get('/v2/datasets/cities/versions')).data;
    expect(versions.map((v: { version: number; itemCount: number; change: string }) => [v.version, v.itemCount, v.change])).toEqual([
      [2, 4, 'parley apply: 2 added, 1 removed'],
      [1, 3, 'parley apply: 3 added, 0 removed'],
      [0, 0, 'created'],
    ]);
    const after: { id: string; variables: { city: string } }[] = (await get('/v2/datasets/cities/items')).data;
    const idOf = (list: typeof before, city: string) => list.find((i) => i.variables.city === city)?.id;
    expect(idOf(after, 'Paris')).toBe(idOf(before, 'Paris'));
    expect(idOf(after, 'Lima')).toBe(idOf(before, 'Lima'));
    expect(idOf(after, 'Oslo')).not.toBe(idOf(before, 'Oslo'));
    // Version 1 is still what it was.
    expect((await get('/v2/datasets/cities/items?version=1')).data.map((i: { id: string }) => i.id)).toEqual(before.map((i) => i.id));

    expect((await apply(file(workspace, { items })).expect(200)).body).toMatchObject({
      datasets: [{ action: 'unchanged', version: 2 }],
      changed: false,
    });
    // The description alone is no new version; a dataset without `items` keeps its items.
    const described = await apply(file(workspace, { items, description: 'Cities, capital ones' })).expect(200);
    expect(described.body.datasets).toEqual([{ name: 'cities', action: 'updated', version: 2, itemCount: 4 }]);
    const unmanaged = file(workspace, { items: '' }).replace(/\n {4}items:\n/, '\n');
    expect((await apply(unmanaged).expect(200)).body.datasets).toEqual([{ name: 'cities', action: 'updated', version: 2, itemCount: 4 }]);
  });

  it('refuses a misspelt key, a check that does not compile and unknown references with the documented 400, keeping nothing', async () => {
    const kept = await snapshot(t, projectId);
    const misspelt = file(workspace)
      .replace('minScores: { exact: 0.5 }', 'minScore: { exact: 0.5 }')
      .replace('expected: Paris }', 'expectd: Paris }');
    const res = await apply(misspelt).expect(400);
    expect(res.body.error.message).toBe('Invalid apply file');
    expect(res.body.error.details).toEqual([
      'datasets[0].items[0] (line 14): Unrecognized key: "expectd"',
      'gates[0].minScores (line 20): Required',
      'gates[0] (line 20): Unrecognized key: "minScore"',
    ]);
    const references = file(workspace)
      .replace('pattern: "^[A-Z]"', 'pattern: "(?<=a)b"')
      .replace('environment: production', 'environment: canary')
      .replace('dataset: cities', 'dataset: towns');
    const refused = await apply(references).expect(400);
    expect(refused.body.error.details).toEqual([
      expect.stringMatching(/^graders\[1\]\.config \(line 9\): .+/),
      'gates[0].environment (line 20): no environment "canary": list it under environments',
      'gates[0].dataset (line 21): no dataset "towns": declare it under datasets',
    ]);
    expect(await snapshot(t, projectId)).toEqual(kept);
  });

  it('a deploy in the file to a gated environment without a passing run is a 409, and nothing of the file is kept', async () => {
    const kept = await snapshot(t, projectId);
    const extra = `  - slug: other
    model: echo
    template: [{ role: user, content: "x" }]`;
    const refused = await apply(
      file(workspace, { deploy: 'staging, production', extra }).replace('name: exact\n', 'name: exact\n    threshold: 0.9\n'),
    ).expect(409);
    expect(refused.body.error).toEqual({
      message: 'The deploy gate of "production" refused city v1',
      details: [expect.stringContaining('no completed experiment run of city v1 on dataset "cities"')],
    });
    expect(await snapshot(t, projectId)).toEqual(kept);

    // With a passing run of the version the same deploy goes through.
    const run = await t
      .http()
      .post('/v2/evals/runs')
      .set(admin())
      .send({ dataset: 'cities', target: { prompt: 'city', version: 1 }, graders: ['exact'] })
      .expect(200);
    for (let status = run.body.status; status !== 'completed'; status = (await get(`/v2/evals/runs/${run.body.id}`)).status) {
      expect(['queued', 'running']).toContain(status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const deployed = await apply(file(workspace, { deploy: 'staging, production' })).expect(200);
    expect(deployed.body.deployments).toContainEqual(
      expect.objectContaining({ slug: 'city', environment: 'production', action: 'deployed' }),
    );
  });
});
