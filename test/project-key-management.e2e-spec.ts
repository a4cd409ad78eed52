import { randomUUID } from 'node:crypto';

import type { Response } from 'supertest';

import { createProject, TestProject } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * A project key with `keys:manage` manages its own project's keys (docs/security.md, "Managing
 * keys"): another project is not found, a key never gives or touches more than it holds, and every
 * change is audited with the key as its actor, as for the admin key.
 */
describe('project keys managing their own project keys', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const keysOf = (q: TestProject) => `/v2/workspaces/${q.workspace}/projects/${q.project}/api-keys`;

  /** A key of `q` made by the admin key with these scopes (and environments). */
  async function keyWith(q: TestProject, scopes: string[] | null, environments?: string[]) {
    const body = { name: `k-${randomUUID().slice(0, 8)}`, ...(scopes ? { scopes } : {}), ...(environments ? { environments } : {}) };
    return (await t.http().post(keysOf(q)).set(admin).send(body).expect(200)).body as { id: string; key: string; name: string };
  }
  const keyRows = (projectId: string) =>
    t.dataSource.query('SELECT id, scopes, environments, revoked_at FROM api_keys WHERE project_id = $1 ORDER BY id', [projectId]);
  const auditRows = (projectId: string) =>
    t.dataSource.query(
      'SELECT action, resource_id, actor_kind, actor_key_id, actor_key_name FROM audit_events WHERE project_id = $1 AND resource_type = $2 ORDER BY id',
      [projectId, 'api_key'],
    );

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    other = await createProject(t);
  });
  afterAll(() => t.close());

  it('creates, lists, re-scopes and revokes keys of its own project, each audited with the key as actor', async () => {
    const manager = await keyWith(p, ['keys:manage', 'logs:read', 'threads:read']);
    const as = { 'X-API-Key': manager.key };
    const created = await t
      .http()
      .post(keysOf(p))
      .set(as)
      .send({ name: 'made-by-key', scopes: ['logs:read'] })
      .expect(200);
    expect(created.body).toMatchObject({
      name: 'made-by-key',
      scopes: ['logs:read'],
      environments: null,
      workspace: p.workspace,
      project: p.project,
      key: expect.stringMatching(/^pk_/),
    });
    await t.http().get('/v2/logs').set('X-API-Key', created.body.key).expect(200);
    expect((await t.http().get('/v2/threads').set('X-API-Key', created.body.key)).status).toBe(403);

    const listed = await t.http().get(keysOf(p)).set(as).expect(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual(expect.arrayContaining([p.keyId, manager.id, created.body.id]));
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    const rescoped = await t
      .http()
      .put(`${keysOf(p)}/${created.body.id}/access`)
      .set(as)
      .send({ scopes: ['threads:read'] })
      .expect(200);
    expect(rescoped.body.scopes).toEqual(['threads:read']);
    await t.http().get('/v2/threads').set('X-API-Key', created.body.key).expect(200);

    await t
      .http()
      .delete(`${keysOf(p)}/${created.body.id}`)
      .set(as)
      .expect(200, { id: created.body.id, object: 'api_key.revoked', revoked: true });
    expect((await t.http().get('/v2/threads').set('X-API-Key', created.body.key)).status).toBe(401);
    const row = (await keyRows(p.projectId)).find((k: { id: string }) => k.id === created.body.id);
    expect(row).toMatchObject({ scopes: ['threads:read'], revoked_at: expect.any(Date) });

    const events = (await auditRows(p.projectId)).filter((e: { resource_id: string }) => e.resource_id === created.body.id);
    const actor = { actor_kind: 'project', actor_key_id: manager.id, actor_key_name: manager.name };
    expect(events).toEqual([
      { action: 'api_key.created', resource_id: created.body.id, ...actor },
      { action: 'api_key.access_changed', resource_id: created.body.id, ...actor },
      { action: 'api_key.revoked', resource_id: created.body.id, ...actor },
    ]);
  });

  it("finds another project's keys not found, by its path or by a key id under its own path, and changes nothing there", async () => {
    const manager = await keyWith(p, null);
    const as = { 'X-API-Key': manager.key };
    const before = await keyRows(other.projectId);
    const eventsBefore = await auditRows(other.projectId);
    const refused: [string, Response][] = [
      ['list', await t.http().get(keysOf(other)).set(as)],
      ['create', await t.http().post(keysOf(other)).set(as).send({ name: 'intruder' })],
      [
        'access',
        await t
          .http()
          .put(`${keysOf(other)}/${other.keyId}/access`)
          .set(as)
          .send({ scopes: ['invoke'] }),
      ],
      [
        'revoke',
        await t
          .http()
          .delete(`${keysOf(other)}/${other.keyId}`)
          .set(as),
      ],
      ['own workspace, other project', await t.http().get(`/v2/workspaces/${p.workspace}/projects/${other.project}/api-keys`).set(as)],
    ];
    // Exactly the admin key's answer for a project that does not exist.
    const missing = await t.http().get(`/v2/workspaces/${p.workspace}/projects/no-such-project/api-keys`).set(admin).expect(404);
    expect(missing.body).toEqual({ error: { message: 'Project not found' } });
    for (const [what, res] of refused) expect([what, res.status, res.body]).toEqual([what, 404, missing.body]);
    // Its own path with the other project's key id: that key is not in this project.
    expect(
      (
        await t
          .http()
          .put(`${keysOf(p)}/${other.keyId}/access`)
          .set(as)
          .send({ scopes: ['invoke'] })
      ).status,
    ).toBe(404);
    expect(
      (
        await t
          .http()
          .delete(`${keysOf(p)}/${other.keyId}`)
          .set(as)
      ).status,
    ).toBe(404);
    expect(await keyRows(other.projectId)).toEqual(before);
    expect(await auditRows(other.projectId)).toEqual(eventsBefore);
    await t.http().get('/v2/threads').set('X-API-Key', other.key).expect(200);
    // The rest of the admin API stays the admin key's.
    expect((await t.http().get('/v2/workspaces').set(as)).status).toBe(403);
    expect((await t.http().post(`/v2/workspaces/${p.workspace}/projects`).set(as).send({ slug: 'sneaky' })).status).toBe(403);
  });

  it('never gives, nor touches a key holding, more scopes or environments than it holds (403, nothing stored)', async () => {
    const narrow = await keyWith(p, ['keys:manage', 'invoke'], ['production']);
    const as = { 'X-API-Key': narrow.key };
    const rowsBefore = await keyRows(p.projectId);
    const eventsBefore = await auditRows(p.projectId);
    const attempts: [object, string][] = [
      [{ scopes: ['invoke', 'logs:read'], environments: ['production'] }, 'cannot grant scopes it does not hold: logs:read'],
      [{ preset: 'full', environments: ['production'] }, 'cannot grant scopes it does not hold:'],
      [{ environments: ['production'] }, 'cannot grant scopes it does not hold:'], // no scopes named: every scope
      [{ scopes: ['invoke'] }, 'cannot grant every environment (it is limited to: production)'],
      [{ scopes: ['invoke'], environments: ['production', 'staging'] }, 'cannot grant environments it is not allowed: staging'],
    ];
    for (const [body, message] of attempts) {
      const res = await t.http().post(keysOf(p)).set(as).send(body);
      expect([JSON.stringify(body), res.status, res.body.message]).toEqual([JSON.stringify(body), 403, expect.stringContaining(message)]);
    }
    // The project's full key: neither re-scoped nor revoked by the narrower one.
    const widen = await t
      .http()
      .put(`${keysOf(p)}/${p.keyId}/access`)
      .set(as)
      .send({ scopes: ['invoke'], environments: ['production'] });
    expect([widen.status, widen.body.message]).toEqual([403, expect.stringContaining('cannot change a key that holds more than itself')]);
    const revoke = await t
      .http()
      .delete(`${keysOf(p)}/${p.keyId}`)
      .set(as);
    expect([revoke.status, revoke.body.message]).toEqual([403, expect.stringContaining('cannot change a key that holds more than itself')]);
    expect(await keyRows(p.projectId)).toEqual(rowsBefore);
    expect(await auditRows(p.projectId)).toEqual(eventsBefore);
    await t.http().get('/v2/threads').set('X-API-Key', p.key).expect(200);

    // Within its grant it may: a key with what it holds, or less.
    const made = await t
      .http()
      .post(keysOf(p))
      .set(as)
      .send({ scopes: ['invoke'], environments: ['production'] })
      .expect(200);
    expect(made.body).toMatchObject({ scopes: ['invoke'], environments: ['production'] });
    await t
      .http()
      .delete(`${keysOf(p)}/${made.body.id}`)
      .set(as)
      .expect(200);
  });

  it('a console session of the key does the same, with the CSRF header', async () => {
    const manager = await keyWith(p, ['keys:manage', 'threads:read']);
    const session = await t.http().post('/v2/console/session').send({ key: manager.key }).expect(200);
    expect(session.body).toMatchObject({
      kind: 'project',
      workspace: p.workspace,
      project: p.project,
      scopes: ['threads:read', 'keys:manage'],
      environments: null,
    });
    const cookie = (session.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect(
      (
        await t
          .http()
          .post(keysOf(p))
          .set('Cookie', cookie)
          .send({ scopes: ['threads:read'] })
      ).status,
    ).toBe(403);
    const created = await t
      .http()
      .post(keysOf(p))
      .set('Cookie', cookie)
      .set('X-Parley-CSRF', '1')
      .send({ scopes: ['threads:read'] })
      .expect(200);
    await t.http().get('/v2/threads').set('X-API-Key', created.body.key).expect(200);
    expect((await t.http().get(keysOf(other)).set('Cookie', cookie)).status).toBe(404);
  });
});
