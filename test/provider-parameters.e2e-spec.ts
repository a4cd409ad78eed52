import { startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * GET /v2/providers/parameters (docs/console.md, "Playground"): what the playground offers controls
 * for. Checked against what the API does with a version's parameters: a value at a listed bound is
 * stored and one past it refused; through fake OpenAI and Anthropic upstreams, a call sends exactly
 * the parameters listed as `sent` for the provider's type. Error bodies: the controller tier
 * (test/controller/provider-parameters.controller-spec.ts).
 */
interface Parameter {
  name: string;
  control: string;
  minimum: number | null;
  maximum: number | null;
  choices: unknown[] | null;
  sent: boolean;
}

describe('provider parameters', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  let catalogue: { type: string; models: string[] | null; parameters: Parameter[] }[];
  const as = () => ({ 'X-API-Key': p.key });

  const keyWith = async (scopes: string[]) =>
    (
      await t
        .http()
        .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
        .set('X-API-Key', TEST_ADMIN_KEY)
        .send({ name: scopes.join('+'), scopes })
        .expect(200)
    ).body.key as string;
  const parametersOf = (type: string) => catalogue.find((entry) => entry.type === type)!.parameters;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    [openai, anthropic] = await Promise.all([startFakeOpenAIUpstream(), startFakeAnthropicUpstream()]);
    await addProviderCredential(t, p, { name: 'gpt', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant-test' });
    catalogue = (await t.http().get('/v2/providers/parameters').set(as()).expect(200)).body.data;
  });
  afterAll(async () => {
    await Promise.all([openai?.close(), anthropic?.close()]);
    await t?.close();
  });

  it('answers a key holding registry:read or providers:read alone, and refuses one holding neither', async () => {
    for (const scopes of [['registry:read'], ['providers:read']]) {
      const res = await t
        .http()
        .get('/v2/providers/parameters')
        .set('X-API-Key', await keyWith(scopes));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(catalogue);
    }
    const refused = await t
      .http()
      .get('/v2/providers/parameters')
      .set('X-API-Key', await keyWith(['invoke']));
    expect(refused.status).toBe(403);
    expect(catalogue.map((entry) => [entry.type, entry.models])).toEqual([
      ['local', ['echo']],
      ['openai', null],
      ['anthropic', null],
    ]);
  });

  it('lists bounds the versions endpoint keeps: a value at each bound is stored, one past it refused with the parameter named', async () => {
    await t.http().post('/v2/prompts').set(as()).send({ slug: 'bounds', kind: 'prompt' }).expect(200);
    const bounded = parametersOf('openai').filter((param) => param.minimum !== null || param.maximum !== null);
    expect(bounded.map((param) => param.name)).toEqual(['max_tokens', 'temperature', 'top_p', 'presence_penalty', 'frequency_penalty']);
    for (const param of bounded) {
      for (const [bound, past] of [
        [param.minimum, param.minimum === null ? null : param.minimum - 1],
        [param.maximum, param.maximum === null ? null : param.maximum + 1],
      ]) {
        if (bound === null) continue;
        const version = (value: number) =>
          t
            .http()
            .post('/v2/prompts/bounds/versions')
            .set(as())
            .send({ provider: 'local', model: 'echo', template: [{ role: 'system', content: 'Hi' }], parameters: { [param.name]: value } });
        const stored = await version(bound);
        expect({ name: param.name, status: stored.status }).toEqual({ name: param.name, status: 200 });
        const fetched = await t.http().get(`/v2/prompts/bounds/versions/${stored.body.version}`).set(as()).expect(200);
        expect(fetched.body.parameters).toEqual({ [param.name]: bound });
        const refused = await version(past!);
        expect({ name: param.name, status: refused.status }).toEqual({ name: param.name, status: 400 });
        expect(JSON.stringify(refused.body)).toContain(param.name);
      }
    }
  });

  it.each([
    ['openai', 'gpt', () => openai],
    ['anthropic', 'claude', () => anthropic],
  ])('a call to a provider of type %s sends exactly the parameters listed as sent for it', async (type, provider, upstream) => {
    const params = parametersOf(type);
    // A value of each number, text list and listed choice (tool_choice needs the tools it chooses among).
    const value = (param: Parameter): unknown =>
      param.control === 'text-list' ? ['END'] : param.control === 'choice' ? param.choices![0] : (param.maximum ?? param.minimum ?? 7);
    const parameters: Record<string, any> = Object.fromEntries(
      params.filter((param) => param.control !== 'choice' || param.choices!.length > 0).map((param) => [param.name, value(param)]),
    );
    const slug = `sent-${type}`;
    await deploy(t, p, {
      slug,
      provider,
      model: type === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-5',
      parameters,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
    });
    const before = upstream().requests.length;
    const res = await t
      .http()
      .post(invokePath(p, slug))
      .set(as())
      .send({ messages: [{ role: 'user', content: 'Hello' }] });
    expect(res.status).toBe(200);
    const body = upstream().requests[before].body as Record<string, unknown>;
    // Anthropic's own names: stop_sequences; a text answer is what the Messages API gives without asking.
    const field = (name: string) => (type === 'anthropic' && name === 'stop' ? 'stop_sequences' : name);
    const unasked = (name: string) => type === 'anthropic' && name === 'response_format' && parameters.response_format?.type === 'text';
    const arrived = Object.fromEntries(params.map((param) => [param.name, field(param.name) in body]));
    expect(arrived).toEqual(
      Object.fromEntries(params.map((param) => [param.name, param.sent && param.name in parameters && !unasked(param.name)])),
    );
  });
});
