import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const onPostgres = Boolean(process.env.DATABASE_URL);
/** A minute: only the invalidation (same transaction, then after commit) can explain a change seen at once. */
const CACHE_ENV = { ...INVOKE_APP_ENV, REGISTRY_CACHE_TTL_MS: '60000' };
const archivedMessage = (slug: string, to: string) => `"${slug}" is archived: restore it (POST /v2/prompts/${slug}/restore) to ${to}`;

/**
 * Archiving and restoring (docs/registry.md, "Archiving"), through HTTP as a client would, with
 * the database and the audit trail read afterwards: a deployed prompt is not archived (409 naming
 * where); an undeployed one is, and is then hidden from the list, refused by every invoke surface
 * in its own 404 shape saying it is archived, refused by deploys, versions and a create of its slug
 * (409); restoring brings it back. The registry cache (a minute here) never serves an archived
 * prompt: not on this instance, and on PostgreSQL not on a second one either.
 */
describe('archiving and restoring prompts, assistants and embedding entries', () => {
  let t: TestApp;
  let b: TestApp;
  let p: TestProject;
  const saved = process.env.REGISTRY_CACHE_TTL_MS;
  const as = () => ({ 'X-API-Key': p.key });
  const post = (path: string, body: object = {}) => t.http().post(path).set(as()).send(body);
  const promptRow = async (slug: string) =>
    (await t.dataSource.query('SELECT archived_at FROM prompts WHERE project_id = $1 AND slug = $2', [p.projectId, slug]))[0];
  const audit = async (action: string) =>
    (await t.http().get('/v2/audit').query({ action }).set(as()).expect(200)).body.data as Array<Record<string, any>>;
  const auditRows = async (action: string, resourceId: string) =>
    (
      await t.dataSource.query(
        'SELECT actor_kind, before, after FROM audit_events WHERE project_id = $1 AND action = $2 AND resource_id = $3',
        [p.projectId, action, resourceId],
      )
    ).length as number;

  beforeAll(async () => {
    t = await createTestApp(CACHE_ENV);
    b = onPostgres ? await createTestApp(CACHE_ENV) : t;
    p = await createProject(t);
  });
  afterAll(async () => {
    if (b !== t) await b.close();
    await t.close();
    if (saved === undefined) delete process.env.REGISTRY_CACHE_TTL_MS;
    else process.env.REGISTRY_CACHE_TTL_MS = saved;
  });

  it('refuses to archive a deployed prompt (409 naming where), archives it once undeployed, and restores it', async () => {
    await deploy(t, p, { slug: 'wrong-kind', template: [{ role: 'system', content: 'One.' }], environments: ['staging', 'production'] });
    const refused = await post('/v2/prompts/wrong-kind/archive').expect(409);
    expect(refused.body).toEqual({
      error: {
        message:
          '"wrong-kind" is deployed in production, staging: undeploy it there first (DELETE /v2/prompts/wrong-kind/deployments/{environment}), then archive it',
      },
    });
    expect((await promptRow('wrong-kind')).archived_at).toBeNull();
    expect(await auditRows('prompt.archived', 'wrong-kind')).toBe(0);

    for (const environment of ['staging', 'production'])
      await t.http().delete(`/v2/prompts/wrong-kind/deployments/${environment}`).set(as()).expect(200);
    const archived = await post('/v2/prompts/wrong-kind/archive').expect(200);
    expect(archived.body).toMatchObject({ slug: 'wrong-kind', kind: 'prompt', latestVersion: 1, deployments: [] });
    expect(Date.parse(archived.body.archivedAt)).toBeGreaterThan(Date.now() - 60_000);
    const row = await promptRow('wrong-kind');
    expect(new Date(row.archived_at).toISOString()).toBe(archived.body.archivedAt);
    // Archiving again changes nothing, and writes nothing.
    expect((await post('/v2/prompts/wrong-kind/archive').expect(200)).body.archivedAt).toBe(archived.body.archivedAt);
    const events = (await audit('prompt.archived')).filter((e) => e.resourceId === 'wrong-kind');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      resourceType: 'prompt',
      actor: { kind: 'project', keyId: p.keyId },
      before: { slug: 'wrong-kind', kind: 'prompt', archivedAt: null },
      after: { slug: 'wrong-kind', kind: 'prompt', archivedAt: archived.body.archivedAt },
    });

    // Hidden from the list, shown with ?archived=true, and still readable by slug.
    const live = (await t.http().get('/v2/prompts').set(as()).expect(200)).body.data.map((x: { slug: string }) => x.slug);
    expect(live).not.toContain('wrong-kind');
    const shelf = (await t.http().get('/v2/prompts?archived=true').set(as()).expect(200)).body.data;
    expect(shelf.map((x: { slug: string }) => x.slug)).toEqual(['wrong-kind']);
    expect((await t.http().get('/v2/prompts/wrong-kind').set(as()).expect(200)).body.archivedAt).toBe(archived.body.archivedAt);
    expect((await t.http().get('/v2/prompts?archived=maybe').set(as()).expect(400)).body).toEqual({
      error: { message: 'Invalid request parameters', details: ['archived must be one of the following values: true, false'] },
    });

    // Neither deployed, nor versioned, nor created again under its slug: 409s that say how to bring it back.
    const deployRefusal = await post('/v2/prompts/wrong-kind/deployments', { environment: 'production', version: 1 }).expect(409);
    expect(deployRefusal.body).toEqual({ error: { message: archivedMessage('wrong-kind', 'deploy it') } });
    const versionRefusal = await post('/v2/prompts/wrong-kind/versions', {
      provider: 'local',
      model: 'echo',
      template: [{ role: 'system', content: 'Two.' }],
    }).expect(409);
    expect(versionRefusal.body).toEqual({ error: { message: archivedMessage('wrong-kind', 'add versions') } });
    const createRefusal = await post('/v2/prompts', { slug: 'wrong-kind', kind: 'assistant' }).expect(409);
    expect(createRefusal.body).toEqual({
      error: {
        message:
          'A prompt or assistant with slug "wrong-kind" already exists and is archived: restore it (POST /v2/prompts/wrong-kind/restore)',
      },
    });
    const rows = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM prompt_versions v WHERE v.project_id = p.project_id AND v.prompt_id = p.id) AS versions,
              (SELECT count(*)::int FROM deployments d WHERE d.project_id = p.project_id AND d.prompt_id = p.id AND d.replaced_at IS NULL) AS current
         FROM prompts p WHERE p.project_id = $1 AND p.slug = 'wrong-kind'`,
      [p.projectId],
    );
    expect(rows[0]).toEqual({ versions: 1, current: 0 });

    const restored = await post('/v2/prompts/wrong-kind/restore').expect(200);
    expect(restored.body.archivedAt).toBeNull();
    expect((await promptRow('wrong-kind')).archived_at).toBeNull();
    expect((await audit('prompt.restored')).filter((e) => e.resourceId === 'wrong-kind')[0]).toMatchObject({
      before: { archivedAt: archived.body.archivedAt },
      after: { archivedAt: null },
    });
    await post('/v2/prompts/wrong-kind/deployments', { environment: 'production' }).expect(200);
    await t.http().post(invokePath(p, 'wrong-kind')).set(as()).send({}).expect(200);
    // Restoring a live one changes nothing.
    await post('/v2/prompts/wrong-kind/restore').expect(200);
    expect(await auditRows('prompt.restored', 'wrong-kind')).toBe(1);
  });

  it('every invoke surface refuses an archived prompt, assistant or embedding entry in its own 404 shape, saying so', async () => {
    await deploy(t, p, { slug: 'old-helper', kind: 'assistant', template: [{ role: 'system', content: 'Old.' }] });
    await post('/v2/prompts', { slug: 'old-vectors', kind: 'embedding' }).expect(200);
    await post('/v2/prompts/old-vectors/versions', { provider: 'local', model: 'embed', parameters: { dimensions: 8 } }).expect(200);
    // Served, and so cached, before the archive: the cache must not keep serving them.
    await t.http().post(invokePath(p, 'old-helper')).set(as()).send({}).expect(200);
    await t
      .http()
      .post(`${invokePath(p, 'old-helper')}?v=1`)
      .set(as())
      .send({})
      .expect(200);
    await t.http().post('/v1/embeddings').set(as()).send({ model: 'old-vectors@production:1', input: 'x' }).expect(200);
    await t.http().delete('/v2/prompts/old-helper/deployments/production').set(as()).expect(200);
    await post('/v2/prompts/old-helper/archive').expect(200);
    await post('/v2/prompts/old-vectors/archive').expect(200);

    const message = archivedMessage('old-helper', 'invoke it');
    for (const path of [invokePath(p, 'old-helper'), `${invokePath(p, 'old-helper')}?v=1`, invokePath(p, 'old-helper', 'staging')]) {
      const res = await t.http().post(path).set(as()).send({});
      expect([path, res.status, res.body]).toEqual([path, 404, { error: 'Prompt deployment not found', message }]);
    }
    const chat = await t
      .http()
      .post('/v1/chat/completions')
      .set(as())
      .send({ model: 'old-helper@production:1', messages: [{ role: 'user', content: 'hi' }] })
      .expect(404);
    expect(chat.body).toEqual({ error: { message, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
    const embeddings = await t.http().post('/v1/embeddings').set(as()).send({ model: 'old-vectors@production:1', input: 'x' }).expect(404);
    expect(embeddings.body).toEqual({
      error: {
        message: archivedMessage('old-vectors', 'invoke it'),
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      },
    });
    const messages = await t
      .http()
      .post('/v1/messages')
      .set({ 'x-api-key': p.key })
      .send({ model: 'old-helper@production:1', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .expect(404);
    expect(messages.body).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: `model: ${message}` } });
    const langtail = await t.http().get('/project-prompt/old-helper/production?v=1').set(as()).expect(404);
    expect(langtail.body).toEqual({ error: 'Prompt deployment not found', message });

    // Nothing was logged for the refused calls.
    const logs = await t.dataSource.query(
      "SELECT count(*)::int AS n FROM request_logs WHERE project_id = $1 AND prompt_slug IN ('old-helper', 'old-vectors')",
      [p.projectId],
    );
    expect(logs[0].n).toBe(3);
  });

  it(`an archive and a restore reach the registry cache at once${onPostgres ? ', on a second instance too' : ''}`, async () => {
    await deploy(t, p, { slug: 'cached', template: [{ role: 'system', content: 'Cached.' }], environments: [] });
    const pinned = `${invokePath(p, 'cached')}?v=1`;
    await t.http().post(pinned).set(as()).send({}).expect(200);
    await b.http().post(pinned).set(as()).send({}).expect(200);
    await post('/v2/prompts/cached/archive').expect(200);
    expect((await t.http().post(pinned).set(as()).send({})).status).toBe(404);
    const seenBy = async (app: TestApp, status: number) => {
      for (let i = 0; i < 50; i++) {
        if ((await app.http().post(pinned).set(as()).send({})).status === status) return true;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return false;
    };
    // Well under the minute the cache would keep it: only the notification explains it.
    expect(await seenBy(b, 404)).toBe(true);
    await post('/v2/prompts/cached/restore').expect(200);
    expect((await t.http().post(pinned).set(as()).send({})).status).toBe(200);
    expect(await seenBy(b, 200)).toBe(true);
  });

  it('404s for an unknown prompt, and another project cannot archive this one', async () => {
    expect((await post('/v2/prompts/nope/archive').expect(404)).body).toEqual({ error: { message: 'Prompt not found' } });
    expect((await post('/v2/prompts/nope/restore').expect(404)).body).toEqual({ error: { message: 'Prompt not found' } });
    const other = await createProject(t);
    await deploy(t, p, { slug: 'mine', environments: [] });
    await t.http().post('/v2/prompts/mine/archive').set('X-API-Key', other.key).expect(404);
    expect((await promptRow('mine')).archived_at).toBeNull();
  });
});
