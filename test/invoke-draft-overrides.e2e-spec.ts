import { randomUUID } from 'node:crypto';

import { FakeUpstream, openaiCompletion, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

/**
 * An invoke's `provider` and `tools` in place of the version's (docs/console.md, the playground's
 * "run without saving"): the call goes to that provider with those tools, and is logged so.
 */
describe('invoke body: provider and tools overrides', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let fake: FakeUpstream;

  const logOf = (id: string) =>
    t.dataSource.query('SELECT provider_name, provider_type, model FROM request_logs WHERE project_id = $1 AND id = $2', [p.projectId, id]);

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_MAX_RETRIES: '0' });
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-draft' });
    await deploy(t, p, { slug: 'drafted' }); // local/echo, no tools
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it("tools: the body's tools are sent instead of the version's (none), and the version stays as it was", async () => {
    const ask = { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] };
    const plain = await api.post(invokePath(p, 'drafted'), ask).expect(200);
    expect(plain.body.choices[0].message.tool_calls ?? []).toEqual([]);
    const withTools = await api.post(invokePath(p, 'drafted'), { ...ask, tools: [WEATHER] }).expect(200);
    expect(withTools.body.choices[0].message.tool_calls).toEqual([
      expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'get_weather' }) }),
    ]);
    const version = await api.get('/v2/prompts/drafted/versions/1').expect(200);
    expect(version.body.tools).toEqual([]);
  });

  it('provider: the call goes to the named provider of the project, and its log says so', async () => {
    fake.setNext(openaiJson(openaiCompletion({ content: 'from upstream' })));
    const res = await api.post(invokePath(p, 'drafted'), { provider: 'upstream', model: 'gpt-draft', tools: [WEATHER] }).expect(200);
    expect(res.body.choices[0].message.content).toBe('from upstream');
    const sent = fake.requests.at(-1)!.body as { model: string; tools: unknown[] };
    expect([sent.model, sent.tools]).toEqual(['gpt-draft', [WEATHER]]);
    expect(await logOf(res.headers['x-parley-log-id'])).toEqual([
      { provider_name: 'upstream', provider_type: 'openai', model: 'gpt-draft' },
    ]);
    // Naming the version's own provider changes nothing.
    const same = await api.post(invokePath(p, 'drafted'), { provider: 'local' }).expect(200);
    expect(await logOf(same.headers['x-parley-log-id'])).toEqual([{ provider_name: 'local', provider_type: 'local', model: 'echo' }]);
  });

  it("an unknown provider, or another project's, is a 400 naming the field; nothing is called", async () => {
    const other = await createProject(t);
    await addProviderCredential(t, other, { name: 'theirs', type: 'openai', baseUrl: fake.url, apiKey: 'sk-other' });
    const before = fake.requests.length;
    for (const provider of ['nope', 'theirs', 'Not A Name', 'x'.repeat(201)]) {
      const res = await api.post(invokePath(p, 'drafted'), { provider });
      expect([provider.slice(0, 20), res.status, res.body.issues?.[0]?.path]).toEqual([provider.slice(0, 20), 400, ['provider']]);
    }
    const badTools = await api.post(invokePath(p, 'drafted'), { tools: [{ type: 'function', function: { name: 'has space' } }] });
    expect(badTools.status).toBe(400);
    expect(fake.requests.length).toBe(before);
  });

  it('a key limited to some environments cannot name another provider (403), and still invokes as deployed', async () => {
    const limited = (
      await t
        .http()
        .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
        .set('X-API-Key', TEST_ADMIN_KEY)
        .send({ name: `limited-${randomUUID().slice(0, 6)}`, scopes: ['invoke'], environments: ['production'] })
        .expect(200)
    ).body.key;
    const before = fake.requests.length;
    const refused = await client(t, limited).post(invokePath(p, 'drafted'), { provider: 'upstream' });
    expect([refused.status, refused.body.message]).toEqual([403, expect.stringContaining('cannot name another provider')]);
    expect(fake.requests.length).toBe(before);
    await client(t, limited)
      .post(invokePath(p, 'drafted'), { tools: [WEATHER] })
      .expect(200);
  });
});
