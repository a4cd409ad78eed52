import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { uniqueSlug } from './support/factories';
import { listen } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const admin = { 'X-API-Key': TEST_ADMIN_KEY };
const ROOT = path.join(__dirname, '..');
const SPAWN_TIMEOUT = 120_000;

interface Entry {
  slug: string;
  content?: string;
  deploy?: string[];
}

function file(workspace: string, environments: string[], prompts: Entry[]): string {
  const entries = prompts.map(
    ({ slug, content = `You are ${slug}.`, deploy = [] }) => `  - slug: ${slug}
    model: echo
    template:
      - { role: system, content: "${content}" }
    deploy: [${deploy.join(', ')}]`,
  );
  return `workspace: ${workspace}\nproject: shelf\nenvironments: [${environments.join(', ')}]\nprompts:\n${entries.join('\n')}\n`;
}

/**
 * `parley apply --prune` and `--dry-run` (docs/apply.md, "Pruning", "Dry run"), through POST
 * /v2/apply and once through the CLI: prune archives the live prompts the file no longer lists
 * and deletes the environments it no longer names, keeping (and saying why) what is still
 * deployed; a prompt the file lists again is restored; a dry run answers the same summary with
 * `dryRun: true` and leaves every row, the audit trail's included, as it was.
 */
describe('parley apply --prune and --dry-run', () => {
  let t: TestApp;
  let workspace: string;
  let projectId: string;
  let tmp: string;
  const environments = ['preview', 'staging', 'production', 'qa'];
  const apply = (text: string, query = '') => t.http().post(`/v2/apply${query}`).set(admin).send({ yaml: text });
  /** Every row apply could touch, to prove a dry run wrote nothing. */
  const snapshot = async () => {
    const rows: Record<string, unknown[]> = {};
    for (const table of ['environments', 'prompts', 'prompt_versions', 'deployments', 'deployment_requests', 'audit_events'])
      rows[table] = await t.dataSource.query(`SELECT * FROM ${table} WHERE project_id = $1 ORDER BY id`, [projectId]);
    return rows;
  };
  const archivedAt = async (slug: string) =>
    (await t.dataSource.query('SELECT archived_at FROM prompts WHERE project_id = $1 AND slug = $2', [projectId, slug]))[0].archived_at;
  const environmentSlugs = async () =>
    (await t.dataSource.query('SELECT slug FROM environments WHERE project_id = $1 ORDER BY slug', [projectId])).map(
      (row: { slug: string }) => row.slug,
    );
  const audit = async (action: string) =>
    (await t.dataSource.query('SELECT resource_id, actor_kind FROM audit_events WHERE project_id = $1 AND action = $2 ORDER BY id', [
      projectId,
      action,
    ])) as { resource_id: string; actor_kind: string }[];
  const project = { 'X-API-Key': TEST_ADMIN_KEY, 'X-Parley-Project': '' };

  beforeAll(async () => {
    t = await createTestApp();
    workspace = uniqueSlug('prune');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-prune-'));
    const first = file(workspace, environments, [
      { slug: 'keep', deploy: ['production'] },
      { slug: 'old-draft' },
      { slug: 'old-live', deploy: ['qa'] },
    ]);
    await apply(first).expect(200);
    projectId = (
      await t.dataSource.query('SELECT p.id FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE w.slug = $1', [workspace])
    )[0].id;
    project['X-Parley-Project'] = `${workspace}/shelf`;
    await t.http().post('/v2/environments').set(project).send({ slug: 'scratch' }).expect(200);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const smaller = () => file(workspace, ['preview', 'staging', 'production'], [{ slug: 'keep', deploy: ['production'] }]);

  it('a dry run answers what pruning would do, with dryRun: true, and writes nothing', async () => {
    const before = await snapshot();
    const dry = await apply(smaller(), '?prune=true&dryRun=true').expect(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      changed: true,
      prompts: [{ slug: 'keep', kind: 'prompt', action: 'unchanged', version: 1 }],
      pruned: {
        prompts: [
          { slug: 'old-draft', kind: 'prompt', action: 'archived' },
          {
            slug: 'old-live',
            kind: 'prompt',
            action: 'kept',
            reason:
              '"old-live" is deployed in qa: undeploy it there first (DELETE /v2/prompts/old-live/deployments/{environment}), then archive it',
          },
        ],
        environments: [
          { slug: 'qa', action: 'kept', reason: '"qa" runs old-live: undeploy it first (DELETE /v2/prompts/{slug}/deployments/qa)' },
          { slug: 'scratch', action: 'deleted' },
        ],
      },
    });
    expect(await snapshot()).toEqual(before);
    // Without prune the same file changes nothing, and says so.
    const plain = await apply(smaller(), '?dryRun=true').expect(200);
    expect(plain.body).toMatchObject({ dryRun: true, changed: false });
    expect(plain.body.pruned).toBeUndefined();
    expect(await snapshot()).toEqual(before);
    expect((await apply(smaller(), '?prune=yes').expect(400)).body).toEqual({
      error: { message: 'Invalid request parameters', details: ['prune must be one of the following values: true, false'] },
    });
  });

  it('prune archives and deletes what the dry run said, audited; what is still deployed is kept until undeployed', async () => {
    const applied = await apply(smaller(), '?prune=true').expect(200);
    expect(applied.body.dryRun).toBeUndefined();
    expect(applied.body.pruned).toEqual({
      prompts: [{ slug: 'old-draft', kind: 'prompt', action: 'archived' }, expect.objectContaining({ slug: 'old-live', action: 'kept' })],
      environments: [expect.objectContaining({ slug: 'qa', action: 'kept' }), { slug: 'scratch', action: 'deleted' }],
    });
    expect(await archivedAt('old-draft')).not.toBeNull();
    expect(await archivedAt('old-live')).toBeNull();
    expect(await environmentSlugs()).toEqual(['preview', 'production', 'qa', 'staging']);
    expect(await audit('prompt.archived')).toEqual([{ resource_id: 'old-draft', actor_kind: 'admin' }]);
    expect(await audit('environment.deleted')).toEqual([{ resource_id: 'scratch', actor_kind: 'admin' }]);

    await t.http().delete('/v2/prompts/old-live/deployments/qa').set(project).expect(200);
    const second = await apply(smaller(), '?prune=true').expect(200);
    expect(second.body.pruned).toEqual({
      prompts: [{ slug: 'old-live', kind: 'prompt', action: 'archived' }],
      environments: [{ slug: 'qa', action: 'deleted' }],
    });
    expect(await archivedAt('old-live')).not.toBeNull();
    expect(await environmentSlugs()).toEqual(['preview', 'production', 'staging']);
    // Pruning again finds nothing: archived ones stay archived, nothing changes.
    const third = await apply(smaller(), '?prune=true').expect(200);
    expect(third.body).toMatchObject({ changed: false, pruned: { prompts: [], environments: [] } });
    // An export leaves the archived ones out (applying it would restore them), and says so; applying it back changes nothing.
    const exported = (await t.http().get(`/v2/export?workspace=${workspace}&project=shelf`).set(admin).expect(200)).text;
    expect(exported).toContain('# note: old-draft: archived, so it is not in this file');
    expect(exported).not.toMatch(/slug: old-(draft|live)/);
    expect((await apply(exported, '?prune=true').expect(200)).body).toMatchObject({ changed: false });
  });

  it('a file that lists an archived prompt again restores it; a dry run of new content makes no version', async () => {
    const back = file(workspace, ['preview', 'staging', 'production'], [{ slug: 'keep', deploy: ['production'] }, { slug: 'old-draft' }]);
    const dry = await apply(back, '?dryRun=true').expect(200);
    expect(dry.body.prompts).toEqual([
      { slug: 'keep', kind: 'prompt', action: 'unchanged', version: 1 },
      { slug: 'old-draft', kind: 'prompt', action: 'unchanged', version: 1, restored: true },
    ]);
    expect(await archivedAt('old-draft')).not.toBeNull();
    const restored = await apply(back).expect(200);
    expect(restored.body).toMatchObject({ changed: true, prompts: [expect.anything(), expect.objectContaining({ restored: true })] });
    expect(await archivedAt('old-draft')).toBeNull();
    expect(await audit('prompt.restored')).toEqual([{ resource_id: 'old-draft', actor_kind: 'admin' }]);

    const edited = file(
      workspace,
      ['preview', 'staging', 'production'],
      [{ slug: 'keep', content: 'You are kept, and changed.', deploy: ['production'] }, { slug: 'old-draft' }],
    );
    const before = await snapshot();
    const preview = await apply(edited, '?dryRun=true').expect(200);
    expect(preview.body).toMatchObject({
      dryRun: true,
      changed: true,
      prompts: [
        { slug: 'keep', action: 'versioned', version: 2 },
        { slug: 'old-draft', action: 'unchanged' },
      ],
      deployments: [{ slug: 'keep', environment: 'production', version: 2, deploymentVersion: 2, action: 'deployed' }],
    });
    expect(await snapshot()).toEqual(before);
    const real = await apply(edited).expect(200);
    const { dryRun: _dryRun, ...previewed } = preview.body;
    expect(real.body).toEqual(previewed);
  });

  it(
    'parley apply --prune --dry-run prints what would change and writes nothing',
    async () => {
      const url = await listen(t);
      const target = path.join(tmp, 'parley.yaml');
      fs.writeFileSync(
        target,
        file(
          workspace,
          ['preview', 'staging', 'production'],
          [{ slug: 'keep', content: 'You are kept, and changed.', deploy: ['production'] }],
        ),
      );
      const before = await snapshot();
      const { DATABASE_URL: _db, PARLEY_URL: _url, PARLEY_KEY: _key, ...inherited } = process.env;
      const run = (args: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          execFile(
            process.execPath,
            [path.join(ROOT, 'dist/cli/main.js'), 'apply', '-f', target, '--url', url, '--key', TEST_ADMIN_KEY, ...args],
            { cwd: ROOT, env: { ...inherited, LOG_LEVEL: 'silent' }, timeout: 60_000 },
            (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
          );
        });
      const human = await run(['--prune', '--dry-run']);
      expect(human.code).toBe(0);
      expect(human.stdout).toBe(
        [
          `Dry run: nothing was written. Applying would change ${workspace}/shelf:`,
          '  - prompt old-draft archived (not in the file)',
          '',
        ].join('\n'),
      );
      const json = await run(['--prune', '--dry-run', '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, pruned: { prompts: [{ slug: 'old-draft', action: 'archived' }] } });
      expect(await snapshot()).toEqual(before);
    },
    SPAWN_TIMEOUT,
  );
});
