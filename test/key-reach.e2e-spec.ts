import { randomUUID } from 'node:crypto';

import { createProject, TestProject } from './support/factories';
import { expectResourceError } from './support/http';
import { INVOKE_APP_ENV } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * No key reaches past its own scope (docs/security.md, "Idempotency keys", "Managing keys",
 * "Workspace admin keys"): an Idempotency-Key replay is answered only to the credential that made
 * the first request, a workspace admin key's usage covers its workspace only, and a narrower
 * workspace admin key never revokes a wider one.
 */
describe('keys stay within their reach', () => {
  let t: TestApp;
  let a: TestProject;
  let b: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const keysOf = (q: TestProject) => `/v2/workspaces/${q.workspace}/projects/${q.project}/api-keys`;
  const adminKeysOf = (q: TestProject) => `/v2/workspaces/${q.workspace}/admin-keys`;
  const liveKeys = async (projectId: string) =>
    Number(
      (await t.dataSource.query('SELECT count(*)::int AS n FROM api_keys WHERE project_id = $1 AND revoked_at IS NULL', [projectId]))[0].n,
    );
  const liveAdminKeys = async (workspace: string) =>
    Number(
      (
        await t.dataSource.query(
          'SELECT count(*)::int AS n FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE w.slug = $1 AND k.project_id IS NULL AND k.revoked_at IS NULL',
          [workspace],
        )
      )[0].n,
    );

  beforeAll(async () => {
    // PARLEY_SECRET_KEY set: a created key's answer is kept (sealed) for replays, which is what the attack read back.
    t = await createTestApp(INVOKE_APP_ENV);
    a = await createProject(t);
    b = await createProject(t);
  });
  afterAll(() => t.close());

  it("a narrower project key replaying a full key's Idempotency-Key gets a 422, not the full key it created", async () => {
    const narrow = (
      await t
        .http()
        .post(keysOf(a))
        .set(admin)
        .send({ name: 'narrow', preset: 'viewer', scopes: ['keys:manage'] })
        .expect(200)
    ).body;
    const idem = randomUUID();
    const made = await t
      .http()
      .post(keysOf(a))
      .set('X-API-Key', a.key)
      .set('Idempotency-Key', idem)
      .send({ name: 'wide', preset: 'full' })
      .expect(200);
    expect(made.body.key).toMatch(/^pk_/);
    const before = await liveKeys(a.projectId);

    const replayed = await t
      .http()
      .post(keysOf(a))
      .set('X-API-Key', narrow.key)
      .set('Idempotency-Key', idem)
      .send({ name: 'wide', preset: 'full' });
    expectResourceError(replayed, 422, 'This Idempotency-Key was already used with a different request');
    expect(replayed.text).not.toContain(made.body.key);
    expect(replayed.headers['idempotent-replayed']).toBeUndefined();
    // Its own request is still its own: refused for what it does not hold.
    expect((await t.http().post(keysOf(a)).set('X-API-Key', narrow.key).send({ name: 'wide', preset: 'full' })).status).toBe(403);
    // The key that made it still gets its replay.
    const again = await t
      .http()
      .post(keysOf(a))
      .set('X-API-Key', a.key)
      .set('Idempotency-Key', idem)
      .send({ name: 'wide', preset: 'full' })
      .expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.key).toBe(made.body.key);
    expect(await liveKeys(a.projectId)).toBe(before);
  });

  it("a narrow workspace admin key replaying the instance admin's creation of an admin key gets a 422", async () => {
    const narrow = (
      await t
        .http()
        .post(adminKeysOf(a))
        .set(admin)
        .send({ name: 'narrow-admin', preset: 'viewer', scopes: ['keys:manage'] })
        .expect(200)
    ).body;
    const idem = randomUUID();
    const made = await t.http().post(adminKeysOf(a)).set(admin).set('Idempotency-Key', idem).send({ name: 'full-admin' }).expect(200);
    expect(made.body.key).toMatch(/^ak_/);
    const replayed = await t
      .http()
      .post(adminKeysOf(a))
      .set('X-API-Key', narrow.key)
      .set('Idempotency-Key', idem)
      .send({ name: 'full-admin' });
    expectResourceError(replayed, 422, 'This Idempotency-Key was already used with a different request');
    expect(replayed.text).not.toContain(made.body.key);
  });

  it('a narrower workspace admin key cannot revoke a wider one; an equal or the instance key can', async () => {
    const wide = (await t.http().post(adminKeysOf(a)).set(admin).send({ name: 'wide-admin' }).expect(200)).body;
    const narrow = (
      await t
        .http()
        .post(adminKeysOf(a))
        .set(admin)
        .send({ name: 'narrow-revoker', preset: 'viewer', scopes: ['keys:manage'] })
        .expect(200)
    ).body;
    const peer = (
      await t
        .http()
        .post(adminKeysOf(a))
        .set(admin)
        .send({ name: 'narrow-peer', preset: 'viewer', scopes: ['keys:manage'] })
        .expect(200)
    ).body;
    const before = await liveAdminKeys(a.workspace);

    const refused = await t
      .http()
      .delete(`${adminKeysOf(a)}/${wide.id}`)
      .set('X-API-Key', narrow.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Forbidden', message: expect.stringMatching(/cannot change a key that holds more than itself/) });
    expect(await liveAdminKeys(a.workspace)).toBe(before);
    await t.http().get(`/v2/workspaces/${a.workspace}/projects`).set('X-API-Key', wide.key).expect(200);

    await t
      .http()
      .delete(`${adminKeysOf(a)}/${peer.id}`)
      .set('X-API-Key', narrow.key)
      .expect(200);
    await t
      .http()
      .delete(`${adminKeysOf(a)}/${wide.id}`)
      .set(admin)
      .expect(200);
    expect(await liveAdminKeys(a.workspace)).toBe(before - 2);
  });

  it("a workspace admin key's usage and costs cover its own workspace's projects only", async () => {
    for (const q of [a, b]) {
      await t
        .http()
        .post('/v1/chat/completions')
        .set('X-API-Key', q.key)
        .send({ model: 'local/echo', messages: [{ role: 'user', content: 'count me' }] })
        .expect(200);
    }
    const own = (await t.http().post(adminKeysOf(a)).set(admin).send({ name: 'usage-reader' }).expect(200)).body;
    const as = { 'X-API-Key': own.key };
    const start = Math.floor(Date.now() / 1000) - 86_400;
    const projectIdsOf = (page: { data: Array<{ results: Array<{ project_id: string | null }> }> }) => [
      ...new Set(page.data.flatMap((bucket) => bucket.results.map((r) => r.project_id))),
    ];

    const usage = await t
      .http()
      .get('/v1/organization/usage/completions')
      .query({ start_time: start, group_by: 'project_id', limit: 2 })
      .set(as)
      .expect(200);
    expect(projectIdsOf(usage.body)).toEqual([a.projectId]);
    const costs = await t
      .http()
      .get('/v1/organization/costs')
      .query({ start_time: start, group_by: 'project_id', limit: 2 })
      .set(as)
      .expect(200);
    expect(projectIdsOf(costs.body)).toEqual([a.projectId]);
    // Naming another workspace's project finds nothing.
    const named = await t
      .http()
      .get('/v1/organization/usage/completions')
      .query({ start_time: start, group_by: 'project_id', project_ids: b.projectId, limit: 2 })
      .set(as)
      .expect(200);
    expect(projectIdsOf(named.body)).toEqual([]);
    // The instance admin key still sees both.
    const all = await t
      .http()
      .get('/v1/organization/usage/completions')
      .query({ start_time: start, group_by: 'project_id', limit: 2 })
      .set(admin)
      .expect(200);
    expect(projectIdsOf(all.body)).toEqual(expect.arrayContaining([a.projectId, b.projectId]));

    const from = new Date((start - 3600) * 1000).toISOString();
    const report = await t.http().get('/v2/usage').query({ from }).set(as).expect(200);
    expect(report.body.workspaces.map((w: { workspace: string }) => w.workspace)).toEqual([a.workspace]);
    expectResourceError(await t.http().get('/v2/usage').query({ from, workspace: b.workspace }).set(as), 404, 'Workspace not found');
  });
});
