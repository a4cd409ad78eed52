import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectUnauthorized } from './support/http';
import { deploy, INVOKE_APP_ENV, invokePath, requestLogRows, threadMessageRows } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** Who may invoke what, where: keys, paths, environments, pinned versions, and the /v2 routes beside the catch-all. */
describe('invoke: routing, keys and versions', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  let api: Client;

  const said = (body: { choices: Array<{ message: { content: string } }> }) => body.choices[0].message.content;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    other = await createProject(t);
    api = client(t, p.key);
    // Version 1 answers through the template only, version 2 (deployed) the same: the user
    // message decides what `echo` says, the template what the provider was asked.
    await deploy(t, p, {
      slug: 'greet',
      template: [
        { role: 'system', content: 'v1' },
        { role: 'user', content: 'version one' },
      ],
    });
    await deploy(t, p, {
      slug: 'greet',
      template: [
        { role: 'system', content: 'v2' },
        { role: 'user', content: 'version two' },
      ],
    });
    await deploy(t, other, { slug: 'greet', template: [{ role: 'user', content: 'other project' }] });
  });
  afterAll(() => t.close());

  it('runs the deployed version of the environment', async () => {
    const res = await api.post(invokePath(p, 'greet'), {}).expect(200);
    expect(said(res.body)).toBe('version two');
  });

  it('pins a version with ?v=N, also one that is not deployed, and takes ?v= (empty) as the deployed one', async () => {
    expect(said((await api.post(`${invokePath(p, 'greet')}?v=1`, {}).expect(200)).body)).toBe('version one');
    expect(said((await api.post(`${invokePath(p, 'greet')}?v=2`, {}).expect(200)).body)).toBe('version two');
    expect(said((await api.post(`${invokePath(p, 'greet')}?v=`, {}).expect(200)).body)).toBe('version two');
    expect(said((await api.post(`${invokePath(p, 'greet')}?`, {}).expect(200)).body)).toBe('version two');
    const logs = await requestLogRows(t, p.projectId);
    expect(logs.slice(-4).map((l) => l.version)).toEqual([1, 2, 2, 2]);
  });

  it('answers 404 for a pinned version that does not exist, and 400 for a ?v that is not a version number', async () => {
    const missing = await api.post(`${invokePath(p, 'greet')}?v=9`, {});
    expect([missing.status, missing.body]).toEqual([404, { error: 'Prompt deployment not found' }]);
    for (const bad of ['abc', '0', '1.5', '-1']) {
      const res = await api.post(`${invokePath(p, 'greet')}?v=${bad}`, {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'Invalid request body',
        issues: [{ code: 'invalid_type', keys: [], path: ['v'], message: expect.stringContaining(bad) }],
      });
    }
  });

  it('answers 404 {error: "Prompt deployment not found"} for an unknown slug, an undeployed or unknown environment', async () => {
    for (const path of [invokePath(p, 'nope'), invokePath(p, 'greet', 'staging'), invokePath(p, 'greet', 'moon')]) {
      const res = await api.post(path, {});
      expect([res.status, res.body]).toEqual([404, { error: 'Prompt deployment not found' }]);
    }
    // The deployment is looked up before the body is read: an invalid body to an unknown slug is still 404.
    const res = await api.post(invokePath(p, 'nope'), { temperature: 'hot' });
    expect([res.status, res.body]).toEqual([404, { error: 'Prompt deployment not found' }]);
  });

  it('answers 403 to a key of another project, whatever the slug and body', async () => {
    for (const path of [
      invokePath(other, 'greet'),
      invokePath(other, 'nope'),
      `/${other.workspace}/${p.project}/greet/production`,
      `/${p.workspace}/${other.project}/greet/production`,
    ]) {
      const res = await api.post(path, { temperature: 'hot' });
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden', message: 'API key does not belong to this project' }]);
    }
    expect(await requestLogRows(t, other.projectId)).toEqual([]);
  });

  it('answers 401 without a key, with an unknown key, and with the admin key 403', async () => {
    expectUnauthorized(await t.http().post(invokePath(p, 'greet')).send({}));
    expectUnauthorized(await t.http().post(invokePath(p, 'greet')).set('X-API-Key', 'pk_nope').send({}));
    expectUnauthorized(await t.http().post(`/project-prompt/greet/production`).send({}));
    const admin = await t.http().post(invokePath(p, 'greet')).set('X-API-Key', TEST_ADMIN_KEY).send({});
    expect(admin.status).toBe(403);
    expect(admin.body.error).toBe('Forbidden');
  });

  it("accepts the langtail path /project-prompt/{slug}/{environment} for the key's project, and the Bearer alias", async () => {
    const res = await t.http().post('/project-prompt/greet/production?v=').set('Authorization', `Bearer ${p.key}`).send({}).expect(200);
    expect(said(res.body)).toBe('version two');
    const pinned = await api.post('/project-prompt/greet/production?v=1', {}).expect(200);
    expect(said(pinned.body)).toBe('version one');
    const otherKey = await client(t, other.key).post('/project-prompt/greet/production', {}).expect(200);
    expect(said(otherKey.body)).toBe('other project');
    const missing = await api.post('/project-prompt/nope/production', {});
    expect([missing.status, missing.body]).toEqual([404, { error: 'Prompt deployment not found' }]);
  });

  it('leaves every fixed /v2 route of four segments to its own controller', async () => {
    const thread = await createThread(t, p);
    // A message create, not an invoke of slug "messages" in workspace "v2".
    const created = await api.post(`/v2/threads/${thread.id}/messages`, { message: { role: 'user', content: 'plain' } }).expect(200);
    expect(created.body).toMatchObject({ threadId: thread.id, content: [{ role: 'user', content: 'plain' }], requestLogId: null });
    expect((await threadMessageRows(t, p.projectId, thread.id)).map((r) => r.content)).toEqual([[{ role: 'user', content: 'plain' }]]);
    await createMessage(t, p, thread.id, 'second');
    const listed = await api.get(`/v2/threads/${thread.id}/messages`).expect(200);
    expect(listed.body.data).toHaveLength(2);

    await api.post('/v2/prompts', { slug: 'four' }).expect(200);
    const version = await api
      .post('/v2/prompts/four/versions', { template: [{ role: 'user', content: 'four' }], model: 'echo' })
      .expect(200);
    expect(version.body.version).toBe(1);
    const deployed = await api.post('/v2/prompts/four/deployments', { environment: 'staging' }).expect(200);
    expect(deployed.body).toMatchObject({ slug: 'four', environment: 'staging', version: 1 });
    expect(said((await api.post(invokePath(p, 'four', 'staging'), {}).expect(200)).body)).toBe('four');

    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    const project = await t.http().post(`/v2/workspaces/${p.workspace}/projects`).set(admin).send({ slug: 'fourth-seg' }).expect(200);
    expect(project.body.slug).toBe('fourth-seg');
    const keys = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/fourth-seg/api-keys`)
      .set(admin)
      .send({ name: 'k' })
      .expect(200);
    expect(keys.body.key).toMatch(/^pk_/);
  });

  it('answers a four-segment path that is no /v2 route as an invoke (403: the key does not own workspace "v2")', async () => {
    const res = await api.post('/v2/threads/abc/nothing', {});
    expect([res.status, res.body]).toEqual([403, { error: 'Forbidden', message: 'API key does not belong to this project' }]);
  });
});
