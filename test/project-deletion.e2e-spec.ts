import { PROJECT_TABLES } from '../src/workspaces/project-tables';
import { createProject, TestProject, uniqueSlug } from './support/factories';
import { expectResourceError } from './support/http';
import { deploy, INVOKE_APP_ENV } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * DELETE /v2/workspaces/{workspace}/projects/{project} (docs/security.md, "Deleting a project"):
 * a project with rows in most tables (prompts, versions, deployments, calls and their logs and
 * rollups, threads, responses, feedback, datasets, a run, graders, a provider, limits, members, a
 * group role, a console session, settings, idempotency keys, its audit trail) is deleted after its
 * typed confirmation; no row of it is left in any table with a project_id (the catalog's list,
 * which must be PROJECT_TABLES), another project of the same workspace is untouched, the instance
 * trail has the event, and its keys and session are refused at once. On PostgreSQL with
 * SCHEMA_MODE=partitioned the same runs over hash-partitioned tables.
 */
describe('deleting a project', () => {
  let t: TestApp;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
  });
  afterAll(() => t.close());

  /** Every table with a project_id column, as the catalog has it (partitions aside). */
  const projectTables = async (): Promise<string[]> =>
    (
      await t.dataSource.query(
        `SELECT c.relname AS name
           FROM pg_class c
           JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'project_id' AND NOT a.attisdropped
          WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          ORDER BY c.relname`,
      )
    ).map((row: { name: string }) => row.name);

  /** The project's rows, table by table. */
  const rowsOf = async (projectId: string): Promise<Record<string, number>> => {
    const counts: Record<string, number> = {};
    for (const table of await projectTables()) {
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [projectId]);
      counts[table] = n;
    }
    return counts;
  };

  /** A project in `workspace` (a new one without), with a key. */
  const project = async (workspace?: string): Promise<TestProject> => {
    if (!workspace) return createProject(t);
    const slug = uniqueSlug('proj');
    const created = await t.http().post(`/v2/workspaces/${workspace}/projects`).set(admin).send({ slug }).expect(200);
    const key = await t.http().post(`/v2/workspaces/${workspace}/projects/${slug}/api-keys`).set(admin).send({ name: 'test' }).expect(200);
    return { workspace, project: slug, projectId: created.body.id, key: key.body.key, keyId: key.body.id };
  };

  /** Rows in most of the project's tables, through the API as its users would make them. Answers a console session cookie. */
  const seed = async (p: TestProject): Promise<string> => {
    const as = { 'X-API-Key': p.key };
    const ok = async (method: 'post' | 'put' | 'patch', path: string, body: object, headers: Record<string, string> = as) => {
      const res = await t.http()[method](path).set(headers).send(body);
      if (res.status >= 300) throw new Error(`${method.toUpperCase()} ${path}: ${res.status} ${res.text}`);
      return res.body;
    };
    await deploy(t, p, { slug: 'chat', kind: 'assistant' });
    const invoked = await ok('post', `/${p.workspace}/${p.project}/chat/production`, { messages: [{ role: 'user', content: 'hello' }] });
    await ok('post', `/${p.workspace}/${p.project}/chat/production`, {
      threadId: invoked.threadId,
      messages: [{ role: 'user', content: 'again' }],
    });
    await t
      .http()
      .post('/v2/threads')
      .set(as)
      .set('Idempotency-Key', uniqueSlug('idem'))
      .send({ metadata: { seeded: 'yes' } })
      .expect(200);
    await ok('post', '/v1/responses', { model: 'local/echo', input: 'stored answer' });
    const logId = (await t.http().get('/v2/logs?slug=chat').set(as).expect(200)).body.data[0].id;
    await ok('post', '/v2/feedback', { logId, name: 'helpful', value: true });
    await ok('post', '/v2/datasets', { name: 'greetings' });
    await ok('post', '/v2/datasets/greetings/items', { items: [{ messages: [{ role: 'user', content: 'hello' }], expected: 'hello' }] });
    await ok('put', '/v2/graders/same', { config: { type: 'equals' } });
    const run = await ok('post', '/v2/evals/runs', {
      dataset: 'greetings',
      target: { prompt: 'chat', environment: 'production' },
      graders: ['same'],
    });
    for (let waited = 0; waited < 20_000; waited += 100) {
      const status = (await t.http().get(`/v2/evals/runs/${run.id}`).set(as).expect(200)).body.status;
      if (['completed', 'failed', 'cancelled'].includes(status)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await ok('post', '/v2/provider-credentials', {
      name: 'elsewhere',
      type: 'openai',
      baseUrl: 'https://api.example.com/v1',
      apiKey: 'sk-x',
    });
    await ok('patch', '/v2/settings', { recordEmbeddingInputs: false });
    const base = `/v2/workspaces/${p.workspace}/projects/${p.project}`;
    await ok('put', `${base}/limits`, { project: { requestsPerMinute: 1000 }, keys: { budgetUsdPerDay: 5 } }, admin);
    await ok('put', `${base}/members/${uniqueSlug('ana')}@example.com`, { role: 'viewer' }, admin);
    await ok('put', `/v2/workspaces/${p.workspace}/group-roles/${uniqueSlug('group')}`, { role: 'editor', project: p.project }, admin);
    const session = await t.http().post('/v2/console/session').send({ key: p.key }).expect(200);
    return String(session.headers['set-cookie']).split(';')[0];
  };

  it('PROJECT_TABLES names every table with a project_id, and no other', async () => {
    expect([...PROJECT_TABLES].sort()).toEqual(await projectTables());
    expect(new Set(PROJECT_TABLES).size).toBe(PROJECT_TABLES.length);
    // The run's SCHEMA_MODE is the one deleted over: hash-partitioned tables in `partitioned`.
    const [{ kind }] = await t.dataSource.query(`SELECT relkind AS kind FROM pg_class WHERE oid = 'thread_messages'::regclass`);
    expect(kind).toBe(process.env.SCHEMA_MODE === 'partitioned' ? 'p' : 'r');
  });

  it('deletes every row of the project after its typed confirmation; the other project is intact, the instance trail has it, its keys end', async () => {
    const doomed = await project();
    const survivor = await project(doomed.workspace);
    const cookie = await seed(doomed);
    await seed(survivor);
    const path = `/v2/workspaces/${doomed.workspace}/projects/${doomed.project}`;
    const before = await rowsOf(doomed.projectId);
    // The seed reached these tables (the catalog's check below would pass on an empty project too).
    for (const table of [
      'prompts',
      'prompt_versions',
      'deployments',
      'environments',
      'request_logs',
      'threads',
      'thread_messages',
      'responses',
      'usage_rollups',
      'usage_rollups_daily',
      'idempotency_keys',
      'feedback',
      'feedback_rollups',
      'datasets',
      'dataset_versions',
      'dataset_items',
      'graders',
      'eval_runs',
      'eval_run_items',
      'provider_credentials',
      'project_settings',
      'limit_settings',
      'memberships',
      'group_roles',
      'console_sessions',
      'api_keys',
      'audit_events',
    ])
      expect({ table, rows: before[table] > 0 }).toEqual({ table, rows: true });
    const survivorBefore = await rowsOf(survivor.projectId);
    // Used just before: the key is in the guard's cache, which the deletion must empty.
    await t.http().get('/v2/threads').set('X-API-Key', doomed.key).expect(200);
    await t.http().get('/v2/console/session').set('Cookie', cookie).expect(200);

    const wrong = await t.http().delete(path).set(admin).send({ confirm: doomed.project });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: {
        message: 'Invalid request body',
        details: [`confirm: must be "${doomed.workspace}/${doomed.project}", the workspace and project being deleted, typed in full`],
      },
    });
    expect(await rowsOf(doomed.projectId)).toEqual(before);

    const deleted = await t
      .http()
      .delete(path)
      .set(admin)
      .send({ confirm: `${doomed.workspace}/${doomed.project}` });
    expect(deleted.status).toBe(200);
    const total = Object.values(before).reduce((sum, n) => sum + n, 0);
    expect(deleted.body).toEqual({
      id: doomed.projectId,
      workspace: doomed.workspace,
      slug: doomed.project,
      object: 'project.deleted',
      deleted: true,
      deletedRows: total,
    });

    // A limits sync (every 100 ms) has run since: the calls' unsent counts must not come back as rows.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const after = await rowsOf(doomed.projectId);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(await t.dataSource.query('SELECT id FROM projects WHERE id = $1', [doomed.projectId])).toEqual([]);
    expect(await rowsOf(survivor.projectId)).toEqual(survivorBefore);
    await t.http().get('/v2/threads').set('X-API-Key', survivor.key).expect(200);
    await t.http().get('/v2/prompts/chat').set('X-API-Key', survivor.key).expect(200);

    // Its key and its console session are refused at once; the project is gone for the admin key too.
    expect((await t.http().get('/v2/threads').set('X-API-Key', doomed.key)).status).toBe(401);
    expect((await t.http().get('/v2/console/session').set('Cookie', cookie)).status).toBe(401);
    expectResourceError(
      await t.http().get('/v2/prompts').set(admin).set('X-Parley-Project', `${doomed.workspace}/${doomed.project}`),
      404,
      'Project not found',
    );
    const projects = (await t.http().get(`/v2/workspaces/${doomed.workspace}/projects`).set(admin).expect(200)).body.data;
    expect(projects.map((row: { slug: string }) => row.slug)).toEqual([survivor.project]);

    // The instance trail, which outlives the project: who, what, and how many rows of each table.
    const events = await t.dataSource.query(
      `SELECT e.action, e.resource_type, e.resource_id, e.actor_kind, e.actor_key_name, e.before, e.after, w.slug AS workspace
         FROM instance_audit_events e JOIN workspaces w ON w.id = e.workspace_id
        WHERE e.action = 'project.deleted' AND e.resource_id = $1`,
      [`${doomed.workspace}/${doomed.project}`],
    );
    expect(events).toEqual([
      {
        action: 'project.deleted',
        resource_type: 'project',
        resource_id: `${doomed.workspace}/${doomed.project}`,
        actor_kind: 'admin',
        actor_key_name: 'PARLEY_ADMIN_KEY',
        workspace: doomed.workspace,
        before: {
          id: doomed.projectId,
          slug: doomed.project,
          name: doomed.project,
          rows: Object.fromEntries(Object.entries(before).filter(([, n]) => n > 0)),
        },
        after: null,
      },
    ]);
    const trail = (await t.http().get(`/v2/admin/audit?workspace=${doomed.workspace}&action=project.deleted`).set(admin).expect(200)).body;
    expect(trail.data.map((e: { resourceId: string }) => e.resourceId)).toEqual([`${doomed.workspace}/${doomed.project}`]);

    // Deleted already: not found, as any project that does not exist.
    expectResourceError(
      await t
        .http()
        .delete(path)
        .set(admin)
        .send({ confirm: `${doomed.workspace}/${doomed.project}` }),
      404,
      'Project not found',
    );
  });

  it('needs the admin key (or the workspace admin key), and a confirmation string; an unknown project is 404', async () => {
    const p = await project();
    const path = `/v2/workspaces/${p.workspace}/projects/${p.project}`;
    const confirm = { confirm: `${p.workspace}/${p.project}` };
    const forbidden = await t.http().delete(path).set('X-API-Key', p.key).send(confirm);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ error: 'Forbidden', message: 'This endpoint needs the admin API key' });
    const stranger = await project();
    const strangerAdmin = (
      await t.http().post(`/v2/workspaces/${stranger.workspace}/admin-keys`).set(admin).send({ name: 'ws' }).expect(200)
    ).body.key;
    expectResourceError(await t.http().delete(path).set('X-API-Key', strangerAdmin).send(confirm), 404, 'Workspace not found');
    const missing = await t.http().delete(path).set(admin).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe('Invalid request body');
    expect(missing.body.error.details).toEqual(expect.arrayContaining([expect.stringMatching(/^confirm /)]));
    expectResourceError(
      await t.http().delete(`/v2/workspaces/${p.workspace}/projects/nope`).set(admin).send(confirm),
      404,
      'Project not found',
    );
    expectResourceError(
      await t.http().delete(`/v2/workspaces/nope-${p.workspace}/projects/${p.project}`).set(admin).send(confirm),
      404,
      'Project not found',
    );
    // Its own workspace's admin key limited to keys:manage would end keys wider than itself: refused.
    const narrow = (
      await t
        .http()
        .post(`/v2/workspaces/${p.workspace}/admin-keys`)
        .set(admin)
        .send({ name: 'narrow', scopes: ['keys:manage'] })
        .expect(200)
    ).body.key;
    const refused = await t.http().delete(path).set('X-API-Key', narrow).send(confirm);
    expect([refused.status, refused.body.message]).toEqual([
      403,
      expect.stringContaining('cannot change a key that holds more than itself'),
    ]);
    // Nothing happened to it; its own workspace's admin key deletes it.
    await t.http().get('/v2/threads').set('X-API-Key', p.key).expect(200);
    const own = (await t.http().post(`/v2/workspaces/${p.workspace}/admin-keys`).set(admin).send({ name: 'ws' }).expect(200)).body.key;
    const res = await t.http().delete(path).set('X-API-Key', own).send(confirm);
    expect(res.status).toBe(200);
    expect((await t.http().get('/v2/threads').set('X-API-Key', p.key)).status).toBe(401);
    const [event] = await t.dataSource.query(
      `SELECT actor_kind, actor_key_name FROM instance_audit_events WHERE action = 'project.deleted' AND resource_id = $1`,
      [`${p.workspace}/${p.project}`],
    );
    expect(event).toEqual({ actor_kind: 'admin', actor_key_name: 'ws' });
  });
});
