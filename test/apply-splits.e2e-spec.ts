import { parse } from 'yaml';

import { describeSummary } from '../src/apply/apply-summary';
import { uniqueSlug } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** One prompt whose `deploy` entries are given as written under it. */
function file(workspace: string, content: string, deploy: string, extra = '') {
  return `workspace: ${workspace}
project: p
environments: [staging, production, qa]
${extra}prompts:
  - slug: reply
    model: echo
    template:
      - { role: system, content: "${content}" }
    deploy:
${deploy}`;
}

const SPLIT = `      - staging
      - environment: production
        split:
          - { version: 1, weight: 90 }
          - { version: file, weight: 10 }
        stickyBy: user
        rules:
          - { version: file, metadata: { tier: internal } }
`;
const PLAIN = '      - staging\n      - production\n';

/** Every row apply writes for the prompt, to show a refused file changed nothing. */
async function snapshot(t: TestApp, projectId: string) {
  const rows: Record<string, string[]> = {};
  for (const table of ['prompts', 'prompt_versions', 'deployments', 'environment_gates', 'datasets', 'graders']) {
    const found: unknown[] = await t.dataSource.query(`SELECT * FROM ${table} WHERE project_id = $1`, [projectId]);
    rows[table] = found.map((row) => JSON.stringify(row)).sort();
  }
  return rows;
}

describe('parley.yaml: splits under deploy (apply and export)', () => {
  let t: TestApp;
  const apply = (yaml: string) => t.http().post('/v2/apply').set('X-API-Key', TEST_ADMIN_KEY).send({ yaml });
  const as = (ws: string) => ({ 'X-API-Key': TEST_ADMIN_KEY, 'X-Parley-Project': `${ws}/p` });

  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  /** The current deployment of reply in an environment, as stored. */
  async function current(projectId: string, environment: string) {
    const [row] = await t.dataSource.query(
      `SELECT d.version_id, d.deployment_version, d.split, d.sticky_by, d.split_rules FROM deployments d
         JOIN environments e ON e.project_id = d.project_id AND e.id = d.environment_id
        WHERE d.project_id = $1 AND e.slug = $2 AND d.replaced_at IS NULL`,
      [projectId, environment],
    );
    return row as { version_id: string; deployment_version: number; split: unknown; sticky_by: string | null; split_rules: unknown };
  }

  async function setUp() {
    const ws = uniqueSlug('ws');
    await apply(file(ws, 'One {{q}}', PLAIN)).expect(200);
    const [{ project_id: projectId }] = await t.dataSource.query(
      'SELECT p.project_id FROM prompts p JOIN projects pr ON pr.id = p.project_id JOIN workspaces w ON w.id = pr.workspace_id WHERE w.slug = $1',
      [ws],
    );
    const versions: { id: string; version: number }[] = await t.dataSource.query(
      'SELECT id, version FROM prompt_versions WHERE project_id = $1 ORDER BY version',
      [projectId],
    );
    return { ws, projectId: projectId as string, v1: versions[0].id };
  }

  it("applies a split with the file's new version as an arm, audited; again, and its export, change nothing; back to plain", async () => {
    const { ws, projectId, v1 } = await setUp();
    const res = await apply(file(ws, 'Two {{q}}', SPLIT)).expect(200);
    const split = [
      { version: 1, weight: 90 },
      { version: 2, weight: 10 },
    ];
    const rules = [{ version: 2, metadata: { tier: 'internal' } }];
    expect(res.body.prompts).toEqual([{ slug: 'reply', kind: 'prompt', action: 'versioned', version: 2 }]);
    expect(res.body.deployments).toEqual([
      { slug: 'reply', environment: 'staging', version: 2, deploymentVersion: 2, action: 'deployed' },
      { slug: 'reply', environment: 'production', version: 1, deploymentVersion: 2, action: 'deployed', split, stickyBy: 'user', rules },
    ]);
    expect(describeSummary(res.body)).toContain(
      '  > reply split v1:90 v2:10 deployed to production (deployment 2; sticky by user; 1 rule)',
    );
    // The first arm is the deployment's version; the split is stored with it.
    expect(await current(projectId, 'production')).toEqual({
      version_id: v1,
      deployment_version: 2,
      split,
      sticky_by: 'user',
      split_rules: rules,
    });
    const audit = await t.http().get('/v2/audit').query({ resourceType: 'deployment' }).set(as(ws)).expect(200);
    const entry = audit.body.data.find((e: { resourceId: string }) => e.resourceId === 'reply@production');
    expect(entry.before).toEqual({ environment: 'production', versionId: v1 });
    expect(entry.after).toMatchObject({
      prompt: 'reply',
      environment: 'production',
      version: 1,
      deploymentVersion: 2,
      split,
      stickyBy: 'user',
      rules,
    });

    const again = await apply(file(ws, 'Two {{q}}', SPLIT)).expect(200);
    expect(again.body.changed).toBe(false);
    expect(again.body.deployments.map((d: { action: string }) => d.action)).toEqual(['unchanged', 'unchanged']);
    expect(describeSummary(again.body)).toBe(`No changes: ${ws}/p already matches the file.`);

    // Export writes the split back with "file" for the version the file holds.
    const exported = await t.http().get('/v2/export').query({ workspace: ws, project: 'p' }).set('X-API-Key', TEST_ADMIN_KEY).expect(200);
    expect(exported.text).toContain('          - {version: 1, weight: 90}\n          - {version: file, weight: 10}\n');
    const doc = parse(exported.text);
    expect(doc.prompts[0].template).toEqual([{ role: 'system', content: 'Two {{q}}' }]);
    expect(doc.prompts[0].deploy).toEqual([
      {
        environment: 'production',
        split: [
          { version: 1, weight: 90 },
          { version: 'file', weight: 10 },
        ],
        stickyBy: 'user',
        rules: [{ version: 'file', metadata: { tier: 'internal' } }],
      },
      'staging',
    ]);
    const before = await snapshot(t, projectId);
    expect((await apply(exported.text).expect(200)).body.changed).toBe(false);
    expect(await snapshot(t, projectId)).toEqual(before);

    // Promoting the file's version: a plain deploy replaces the split.
    const promoted = await apply(file(ws, 'Two {{q}}', PLAIN)).expect(200);
    expect(promoted.body.deployments[1]).toEqual({
      slug: 'reply',
      environment: 'production',
      version: 2,
      deploymentVersion: 3,
      action: 'deployed',
    });
    expect(describeSummary(promoted.body)).toContain('  > reply v2 deployed to production (deployment 3)');
    expect(await current(projectId, 'production')).toMatchObject({
      deployment_version: 3,
      split: null,
      sticky_by: null,
      split_rules: null,
    });
    expect((await apply(file(ws, 'Two {{q}}', PLAIN)).expect(200)).body.changed).toBe(false);
  });

  it("a split of existing versions only (the file's content not an arm) keeps its numbers", async () => {
    const { ws, projectId, v1 } = await setUp();
    await apply(file(ws, 'Two {{q}}', PLAIN)).expect(200);
    const both = `      - { environment: qa, split: [{ version: 1, weight: 1 }, { version: 2, weight: 3 }], stickyBy: none }\n`;
    const res = await apply(file(ws, 'Three {{q}}', both)).expect(200);
    expect(res.body.prompts[0]).toMatchObject({ action: 'versioned', version: 3 });
    expect(await current(projectId, 'qa')).toMatchObject({ version_id: v1, sticky_by: 'none', split_rules: [] });
    expect((await apply(file(ws, 'Three {{q}}', both)).expect(200)).body.changed).toBe(false);
  });

  it('takes guards on a split (defaults filled in), exports them, and a change of guards is a new deployment', async () => {
    const { ws, projectId } = await setUp();
    const guarded = (maxIncrease: number) => `      - environment: production
        split: [{ version: 1, weight: 90 }, { version: file, weight: 10 }]
        guards:
          - { metric: error_rate, maxIncrease: ${maxIncrease} }
          - { metric: feedback, name: helpful, min: 0.6, minCount: 20 }
`;
    const guards = [
      { metric: 'error_rate', maxIncrease: 2, minCalls: 100 },
      { metric: 'feedback', name: 'helpful', min: 0.6, minCount: 20 },
    ];
    const res = await apply(file(ws, 'Two {{q}}', guarded(2))).expect(200);
    expect(res.body.deployments[0]).toMatchObject({ environment: 'production', deploymentVersion: 2, action: 'deployed', guards });
    expect(describeSummary(res.body)).toContain(
      '  > reply split v1:90 v2:10 deployed to production (deployment 2; sticky by thread; 2 guards)',
    );
    const [{ guards: stored }] = await t.dataSource.query(
      `SELECT d.guards FROM deployments d JOIN environments e ON e.project_id = d.project_id AND e.id = d.environment_id
        WHERE d.project_id = $1 AND e.slug = 'production' AND d.replaced_at IS NULL`,
      [projectId],
    );
    expect(stored).toEqual(guards);
    expect((await apply(file(ws, 'Two {{q}}', guarded(2))).expect(200)).body.changed).toBe(false);

    const exported = await t.http().get('/v2/export').query({ workspace: ws, project: 'p' }).set('X-API-Key', TEST_ADMIN_KEY).expect(200);
    expect(exported.text).toContain(
      '        guards:\n          - {metric: error_rate, maxIncrease: 2, minCalls: 100}\n          - {metric: feedback, name: helpful, min: 0.6, minCount: 20}\n',
    );
    expect(parse(exported.text).prompts[0].deploy[0]).toMatchObject({ environment: 'production', guards });
    expect((await apply(exported.text).expect(200)).body.changed).toBe(false);

    const loosened = await apply(file(ws, 'Two {{q}}', guarded(5))).expect(200);
    expect(loosened.body.deployments[0]).toMatchObject({
      deploymentVersion: 3,
      action: 'deployed',
      guards: [{ maxIncrease: 5 }, guards[1]],
    });
    // Guards go with a split only: on a plain deploy they are no field at all.
    const plain = await apply(file(ws, 'Two {{q}}', `      - { environment: qa, guards: [] }\n`)).expect(400);
    expect(plain.body.error.details.join('\n')).toMatch(/prompts\[0\]\.deploy\[0\]/);
  });

  it('reports every problem of a split with its path and line, unknown versions included, and changes nothing', async () => {
    const { ws, projectId } = await setUp();
    const kept = await snapshot(t, projectId);
    const broken = `      - environment: production
        split:
          - { version: 1, weight: 90 }
          - { version: 7, weight: 10 }
        stickyBy: session
      - { environment: qa, split: [{ version: file, weight: 0 }] }
      - { environment: canary, split: [{ version: 1, weight: 1 }], rules: [{ version: 2, user: bob }] }
      - { environment: staging, version: 1 }
`;
    const res = await apply(file(ws, 'Two {{q}}', broken)).expect(400);
    expect(res.body.error.message).toBe('Invalid apply file');
    expect(res.body.error.details).toEqual([
      'prompts[0].deploy[0].stickyBy (line 14): Expected "thread", "user", "none" or "metadata.<key>"',
      'prompts[0].deploy[1].split (line 15): Expected at least one arm with a weight above 0',
      'prompts[0].deploy[2].rules[0].version (line 16): 2 is not an arm of the split',
      "prompts[0].deploy[3].version (line 17): a plain deploy is the environment's slug alone (`- staging`), which deploys this file's content; versions are named in a split's arms",
      `prompts[0].deploy[0].split[1].version (line 13): "reply" has no version 7 (its newest is 1); "file" names the content of this file`,
      'prompts[0].deploy[2].environment (line 16): no environment "canary": list it under environments',
    ]);
    expect(await snapshot(t, projectId)).toEqual(kept);

    // The file's content is version 1 already: naming it both as 1 and as "file" is one version twice.
    const twice = `      - environment: production\n        split: [{ version: 1, weight: 90 }, { version: file, weight: 10 }]\n`;
    const dup = await apply(file(ws, 'One {{q}}', twice)).expect(400);
    expect(dup.body.error.details).toEqual([
      `prompts[0].deploy[0].split[0].version (line 11): version 1 is this file's content, which split[1] already names as "file": each version once`,
    ]);
    expect(await snapshot(t, projectId)).toEqual(kept);
  });

  it('every arm passes the deploy gate: a split carrying an ungated version is a 409 and nothing is kept', async () => {
    const { ws, projectId } = await setUp();
    const kept = await snapshot(t, projectId);
    const evals = `datasets:
  - name: questions
    items: [{ variables: { q: hi }, expected: hi }]
graders:
  - name: exact
    config: { type: equals }
gates:
  - { environment: qa, dataset: questions, minScores: { exact: 0.5 } }
`;
    const split = `      - environment: qa\n        split: [{ version: 1, weight: 50 }, { version: file, weight: 50 }]\n`;
    const refused = await apply(file(ws, 'Two {{q}}', split, evals)).expect(409);
    expect(refused.body.error.message).toBe('The deploy gate of "qa" refused reply v1');
    expect(await snapshot(t, projectId)).toEqual(kept);
  });
});
