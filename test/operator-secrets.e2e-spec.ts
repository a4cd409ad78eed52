import { RegistryCache } from '../src/registry-cache/registry-cache';
import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const OPERATOR_SECRET = 'sk-operator-bound-0123456789abcdef';
const UNBOUND_SECRET = 'sk-operator-unbound-0123456789abcdef';
const PROJECT_SECRET = 'sk-project-own-0123456789abcdef';
const BOUND_VAR = 'PARLEY_PROVIDER_I23_BOUND_KEY';
const UNBOUND_VAR = 'PARLEY_PROVIDER_I23_UNBOUND_KEY';

/**
 * The exfiltration of issue 23: a project key pointing a credential that lends the operator's key
 * (`apiKeyEnv`) at a host of its choosing. Two fake upstreams on loopback, told apart by port: the
 * operator binds the variable to the first (`127.0.0.1:<port>`); the second is the "foreign" host.
 */
describe('operator secrets stay bound to their hosts', () => {
  let t: TestApp;
  let bound: FakeUpstream;
  let foreign: FakeUpstream;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const message = { messages: [{ role: 'user', content: 'hi' }] };
  const secretsSeenBy = (fake: FakeUpstream) =>
    fake.requests.map((r) => String(r.headers.authorization ?? '')).filter((a) => a.includes('sk-'));
  const credential = async (q: TestProject, name: string) =>
    (await t.http().get('/v2/provider-credentials').set('X-API-Key', q.key).expect(200)).body.data.find(
      (c: { name: string }) => c.name === name,
    );

  beforeAll(async () => {
    bound = await startFakeOpenAIUpstream();
    foreign = await startFakeOpenAIUpstream();
    process.env[BOUND_VAR] = OPERATOR_SECRET;
    process.env[UNBOUND_VAR] = UNBOUND_SECRET;
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_KEY_BINDINGS: `${BOUND_VAR}=${new URL(bound.url).host}` });
    p = await createProject(t);
  });
  afterAll(async () => {
    await t.close();
    await bound.close();
    await foreign.close();
    delete process.env[BOUND_VAR];
    delete process.env[UNBOUND_VAR];
  });

  it('lends a bound variable to its host, and refuses a project key pointing it anywhere else (REST and apply)', async () => {
    const as = { 'X-API-Key': p.key };
    await t
      .http()
      .post('/v2/provider-credentials')
      .set(as)
      .send({ name: 'up', type: 'openai', baseUrl: bound.url, apiKeyEnv: BOUND_VAR })
      .expect(200);
    await deploy(t, p, { slug: 'ask', provider: 'up', model: 'gpt-x' });
    await t.http().post(invokePath(p, 'ask')).set(as).send(message).expect(200);
    expect(secretsSeenBy(bound)).toEqual([`Bearer ${OPERATOR_SECRET}`]);

    const created = await t
      .http()
      .post('/v2/provider-credentials')
      .set(as)
      .send({ name: 'exfil', type: 'openai', baseUrl: foreign.url, apiKeyEnv: BOUND_VAR });
    expect(created.status).toBe(400);
    expect(created.body.error.details).toEqual([
      `apiKeyEnv ${BOUND_VAR} is lent by the operator to ${new URL(bound.url).host} only (PROVIDER_KEY_BINDINGS), not to ${new URL(foreign.url).host}`,
    ]);
    const updated = await t
      .http()
      .put('/v2/provider-credentials/up')
      .set(as)
      .send({ type: 'openai', baseUrl: foreign.url, apiKeyEnv: BOUND_VAR });
    expect(updated.status).toBe(400);
    // Without a baseUrl the key would go to api.openai.com, which is not bound either.
    expect(
      (await t.http().post('/v2/provider-credentials').set(as).send({ name: 'default-host', type: 'openai', apiKeyEnv: BOUND_VAR })).status,
    ).toBe(400);
    const applied = await t
      .http()
      .post('/v2/apply')
      .set(as)
      .send({
        workspace: p.workspace,
        project: p.project,
        providers: [{ name: 'up', type: 'openai', baseUrl: foreign.url, apiKeyEnv: BOUND_VAR }],
      });
    expect([applied.status, applied.body.error.details]).toEqual([
      400,
      [expect.stringMatching(/^providers\[0\]\.apiKeyEnv: apiKeyEnv PARLEY_PROVIDER_I23_BOUND_KEY is lent by the operator/)],
    ]);
    expect(await credential(p, 'up')).toMatchObject({ baseUrl: bound.url, apiKeySource: 'env' });

    await t.http().post(invokePath(p, 'ask')).set(as).send(message).expect(200);
    expect(foreign.requests).toEqual([]);
  });

  it('changing the base URL without a new key leaves no key attached (PUT and apply), so the foreign host gets none', async () => {
    const q = await createProject(t);
    const as = { 'X-API-Key': q.key };
    await t
      .http()
      .post('/v2/provider-credentials')
      .set(as)
      .send({ name: 'env', type: 'openai', baseUrl: bound.url, apiKeyEnv: BOUND_VAR })
      .expect(200);
    await t
      .http()
      .post('/v2/provider-credentials')
      .set(as)
      .send({ name: 'own', type: 'openai', baseUrl: bound.url, apiKey: PROJECT_SECRET })
      .expect(200);
    await deploy(t, q, { slug: 'via-env', provider: 'env', model: 'gpt-x' });
    await deploy(t, q, { slug: 'via-own', provider: 'own', model: 'gpt-x' });

    const put = await t.http().put('/v2/provider-credentials/env').set(as).send({ type: 'openai', baseUrl: foreign.url }).expect(200);
    expect(put.body).toMatchObject({ baseUrl: foreign.url, apiKeySource: 'none', apiKeyEnv: null });
    const file = { workspace: q.workspace, project: q.project, providers: [{ name: 'own', type: 'openai', baseUrl: foreign.url }] };
    expect((await t.http().post('/v2/apply').set(as).send(file).expect(200)).body.providers).toEqual([{ name: 'own', action: 'updated' }]);
    expect(await credential(q, 'own')).toMatchObject({ baseUrl: foreign.url, apiKeySource: 'none' });
    const [row] = await t.dataSource.query(
      `SELECT api_key_ciphertext, api_key_env FROM provider_credentials WHERE project_id = $1 AND name = 'own'`,
      [q.projectId],
    );
    expect(row).toEqual({ api_key_ciphertext: null, api_key_env: null });

    const before = foreign.requests.length;
    await t.http().post(invokePath(q, 'via-env')).set(as).send(message).expect(200);
    await t.http().post(invokePath(q, 'via-own')).set(as).send(message).expect(200);
    expect(foreign.requests.length).toBe(before + 2);
    expect(foreign.requests.slice(before).map((r) => r.headers.authorization ?? null)).toEqual([null, null]);
    // A new key in the same request is kept.
    await t
      .http()
      .put('/v2/provider-credentials/own')
      .set(as)
      .send({ type: 'openai', baseUrl: foreign.url, apiKey: PROJECT_SECRET })
      .expect(200);
    expect(await credential(q, 'own')).toMatchObject({ apiKeySource: 'stored' });
  });

  it("an unbound variable is the operator's to lend: refused to a project key, accepted from the admin key, dropped when a project key moves it", async () => {
    const q = await createProject(t);
    const as = { 'X-API-Key': q.key };
    const refused = await t
      .http()
      .post('/v2/provider-credentials')
      .set(as)
      .send({ name: 'op', type: 'openai', baseUrl: foreign.url, apiKeyEnv: UNBOUND_VAR });
    expect([refused.status, refused.body.error.details]).toEqual([400, [expect.stringContaining('is bound to no host by the operator')]]);
    const projectFile = {
      workspace: q.workspace,
      project: q.project,
      providers: [{ name: 'op', type: 'openai', baseUrl: bound.url, apiKeyEnv: UNBOUND_VAR }],
    };
    expect((await t.http().post('/v2/apply').set(as).send(projectFile)).status).toBe(400);

    // The operator decides where its own key goes.
    await t.http().post('/v2/apply').set(admin).send(projectFile).expect(200);
    await deploy(t, q, { slug: 'op-ask', provider: 'op', model: 'gpt-x' });
    await t.http().post(invokePath(q, 'op-ask')).set(as).send(message).expect(200);
    expect(secretsSeenBy(bound)).toContain(`Bearer ${UNBOUND_SECRET}`);

    // A project key re-pointing it: refused with the variable, and without it the key is dropped.
    const moved = { ...projectFile, providers: [{ name: 'op', type: 'openai', baseUrl: foreign.url, apiKeyEnv: UNBOUND_VAR }] };
    expect((await t.http().post('/v2/apply').set(as).send(moved)).status).toBe(400);
    await t
      .http()
      .post('/v2/apply')
      .set(as)
      .send({ ...projectFile, providers: [{ name: 'op', type: 'openai', baseUrl: foreign.url }] })
      .expect(200);
    expect(await credential(q, 'op')).toMatchObject({ baseUrl: foreign.url, apiKeySource: 'none' });
    await t.http().post(invokePath(q, 'op-ask')).set(as).send(message).expect(200);
    expect(secretsSeenBy(foreign)).toEqual([]);
  });

  it('a row stored before the rule, pointing a lent variable at a foreign host, lends nothing at call time', async () => {
    const q = await createProject(t);
    const as = { 'X-API-Key': q.key };
    await t
      .http()
      .post('/v2/provider-credentials')
      .set(as)
      .send({ name: 'old', type: 'openai', baseUrl: bound.url, apiKeyEnv: BOUND_VAR })
      .expect(200);
    await deploy(t, q, { slug: 'old-ask', provider: 'old', model: 'gpt-x' });
    // As an earlier version of Parley let a project key store it.
    await t.dataSource.query(`UPDATE provider_credentials SET base_url = $3 WHERE project_id = $1 AND name = $2`, [
      q.projectId,
      'old',
      foreign.url,
    ]);
    t.app.get(RegistryCache).invalidateProject(q.projectId);
    const before = foreign.requests.length;
    await t.http().post(invokePath(q, 'old-ask')).set(as).send(message).expect(200);
    expect(foreign.requests.length).toBe(before + 1);
    expect(secretsSeenBy(foreign)).toEqual([]);
  });
});
