import OpenAI from 'openai';
import { parse } from 'yaml';

import { localEmbedding } from '../src/providers';
import { fakeEmbedding, FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** Issue 46: deployed "embedding" entries (a provider, a model and dimensions, versioned and deployed like prompts), and the project's switch for storing embedding inputs. */
describe('embedding entries in the registry', () => {
  let t: TestApp;
  let p: TestProject;
  let client: OpenAI;
  let fake: FakeUpstream;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    client = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'oai', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: fake.url, apiKey: 'sk-ant' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const as = () => ({ 'X-API-Key': p.key });
  const createEntry = (slug: string) => t.http().post('/v2/prompts').set(as()).send({ slug, kind: 'embedding' }).expect(200);
  const addVersion = (slug: string, body: object) => t.http().post(`/v2/prompts/${slug}/versions`).set(as()).send(body);
  const deployVersion = (slug: string, version: number, environment = 'production') =>
    t.http().post(`/v2/prompts/${slug}/deployments`).set(as()).send({ environment, version }).expect(200);

  it('an entry is versioned and deployed like a prompt, and the openai SDK embeds through it (float, base64, batches)', async () => {
    const created = await createEntry('search-vectors');
    expect(created.body).toMatchObject({ slug: 'search-vectors', kind: 'embedding' });
    const v1 = await addVersion('search-vectors', { provider: 'local', model: 'embed', parameters: { dimensions: 64 }, message: 'first' });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({
      kind: 'embedding',
      version: 1,
      provider: 'local',
      model: 'embed',
      parameters: { dimensions: 64 },
      template: [],
      tools: [],
      declaredVariables: [],
    });
    await deployVersion('search-vectors', 1);

    const input = ['refund policy', 'shipping times'];
    const floats = await client.embeddings.create({ model: 'search-vectors@production', input, encoding_format: 'float' });
    expect(floats.data.map((d) => d.embedding)).toEqual(input.map((text) => localEmbedding(text, 64).map(Math.fround)));
    expect(floats.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    // No encoding_format: the SDK asks for base64 and decodes it.
    const decoded = await client.embeddings.create({ model: 'search-vectors@production', input });
    expect(decoded.data.map((d) => d.embedding)).toEqual(floats.data.map((d) => d.embedding));
    // The size the entry fixes may be repeated, not changed.
    await client.embeddings.create({ model: 'search-vectors@production', input: 'x', dimensions: 64 });
    const other = client.embeddings.create({ model: 'search-vectors@production', input: 'x', dimensions: 32 });
    await expect(other).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(other).rejects.toMatchObject({ param: 'dimensions', message: expect.stringMatching(/makes 64 dimensions/) });

    const log = (await requestLogRows(t, p.projectId)).find((row) => row.status === 200 && row.prompt_slug === 'search-vectors')!;
    expect(log).toMatchObject({
      kind: 'embedding',
      environment: 'production',
      version: 1,
      deployment_version: 1,
      provider_name: 'local',
      model: 'embed',
      prompt_tokens: 4,
      request_data: { model: 'search-vectors@production', input, encoding_format: 'float' },
    });
    expect(log.parameters).toEqual({ encoding_format: 'float', input_count: 2, dimensions: 64 });

    const models = (await client.models.list()).data.map((m) => m.id);
    expect(models).toContain('search-vectors@production');
  });

  it('a new version deployed moves the callers to it; each call logs its version, usage and cost', async () => {
    await createEntry('docs-vectors');
    await addVersion('docs-vectors', { provider: 'oai', model: 'text-embedding-3-small', parameters: { dimensions: 4 } }).expect(200);
    await deployVersion('docs-vectors', 1);
    const before = fake.requests.length;
    const first = await client.embeddings.create({ model: 'docs-vectors', input: ['a', 'b'], encoding_format: 'float' });
    expect(fake.requests[before].body).toEqual({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      encoding_format: 'float',
      dimensions: 4,
    });
    expect(first.data.map((d) => d.embedding)).toEqual([fakeEmbedding(0, 4), fakeEmbedding(1, 4)]);

    await addVersion('docs-vectors', { provider: 'oai', model: 'text-embedding-3-large' }).expect(200);
    await deployVersion('docs-vectors', 2);
    await client.embeddings.create({ model: 'docs-vectors@production', input: 'c' });
    expect(fake.requests.at(-1)!.body).toEqual({ model: 'text-embedding-3-large', input: ['c'], encoding_format: 'float' });
    const logs = (await requestLogRows(t, p.projectId)).filter((row) => row.prompt_slug === 'docs-vectors');
    expect(logs.map((row) => [row.version, row.model, row.status])).toEqual([
      [1, 'text-embedding-3-small', 200],
      [2, 'text-embedding-3-large', 200],
    ]);
    expect(Number(logs[0].cost_usd)).toBeCloseTo((logs[0].prompt_tokens * 0.02) / 1e6, 12);
    expect(Number(logs[1].cost_usd)).toBeGreaterThan(0);
    const usage = await t
      .http()
      .get('/v2/usage')
      .query({ from: new Date(Date.now() - 3_600_000).toISOString(), group_by: 'prompt' })
      .set(as());
    expect(usage.status).toBe(200);
    const row = usage.body.data.find((r: { prompt?: string }) => r.prompt === 'docs-vectors');
    expect(row).toMatchObject({ calls: 2 });
  });

  it.each([
    [{ template: [{ role: 'user', content: 'hi' }], provider: 'local', model: 'embed' }, 'template: an embedding entry has no template'],
    [{ provider: 'local', model: 'embed', tools: [] }, 'tools: an embedding entry has no tools'],
    [{ provider: 'local', model: 'embed', parameters: { temperature: 1 } }, 'parameters'],
    [{ provider: 'local', model: 'echo' }, "model: The local provider embeds with 'local/embed' only"],
    [{ provider: 'local', model: 'embed', parameters: { dimensions: 5000 } }, 'parameters.dimensions: local/embed makes 1 to 4096'],
    [{ provider: 'claude', model: 'claude-x' }, 'model: Provider "claude" is an anthropic provider, which has no embeddings API'],
    [{ provider: 'nope', model: 'x' }, 'provider: no provider "nope"'],
  ])('an entry version %# that cannot embed is refused when saved (400 naming it), nothing stored', async (body, detail) => {
    await t.http().post('/v2/prompts').set(as()).send({ slug: 'refused-vectors', kind: 'embedding' });
    const res = await addVersion('refused-vectors', body).expect(400);
    expect(res.body.error.details.join('\n')).toContain(detail);
    const versions = await t.http().get('/v2/prompts/refused-vectors/versions').set(as()).expect(200);
    expect(versions.body.data).toEqual([]);
  });

  it('a prompt version still needs a template and takes no dimensions', async () => {
    await deploy(t, p, { slug: 'chatty' });
    const missing = await addVersion('chatty', { provider: 'local', model: 'echo' }).expect(400);
    expect(missing.body.error.details).toContain('template: Required');
    const dims = await addVersion('chatty', { template: [{ role: 'user', content: 'x' }], model: 'echo', parameters: { dimensions: 8 } });
    expect(dims.status).toBe(400);
    expect(dims.body.error.details.join('\n')).toMatch(/parameters.*dimensions/);
  });

  it('the chat surfaces refuse an entry, and /v1/embeddings refuses a prompt, each with a 400 that says where to go', async () => {
    const chat = client.chat.completions.create({ model: 'search-vectors@production', messages: [{ role: 'user', content: 'hi' }] });
    await expect(chat).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(chat).rejects.toMatchObject({
      message: expect.stringContaining('is an embedding entry: call it through POST /v1/embeddings'),
    });
    const responses = client.responses.create({ model: 'search-vectors@production', input: 'hi' });
    await expect(responses).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    const spec = await t
      .http()
      .post(invokePath(p, 'search-vectors'))
      .set(as())
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(400);
    expect(spec.body).toEqual({
      error: 'Bad Request',
      message: '"search-vectors" is an embedding entry: call it through POST /v1/embeddings',
    });
    const prompt = client.embeddings.create({ model: 'chatty@production', input: 'x' });
    await expect(prompt).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(prompt).rejects.toMatchObject({ message: expect.stringContaining('is a prompt, not an embedding entry') });
  });

  it('PATCH /v2/settings turns off storing embedding inputs for the project, audited; chat logs keep theirs', async () => {
    expect((await t.http().get('/v2/settings').set(as()).expect(200)).body).toEqual({
      object: 'project.settings',
      recordEmbeddingInputs: true,
      liveGraders: [],
      updatedAt: null,
    });
    await t.http().patch('/v2/settings').set(as()).send({ recordEmbeddingInputs: 'no' }).expect(400);
    await t.http().patch('/v2/settings').set(as()).send({ recordEmbeddings: false }).expect(400);
    const changed = await t.http().patch('/v2/settings').set(as()).send({ recordEmbeddingInputs: false }).expect(200);
    expect(changed.body).toMatchObject({ recordEmbeddingInputs: false, updatedAt: expect.any(String) });

    await client.embeddings.create({ model: 'search-vectors@production', input: 'confidential memo' });
    const log = (await requestLogRows(t, p.projectId)).at(-1)!;
    expect(log).toMatchObject({ kind: 'embedding', do_not_record: true, request_data: null, prompt_tokens: 2 });
    expect(JSON.stringify(log)).not.toContain('confidential');
    await client.chat.completions.create({ model: 'chatty@production', messages: [{ role: 'user', content: 'kept words' }] });
    expect(JSON.stringify((await requestLogRows(t, p.projectId)).at(-1))).toContain('kept words');

    const audit = await t.http().get('/v2/audit').query({ resourceType: 'settings' }).set(as()).expect(200);
    expect(audit.body.data[0]).toMatchObject({
      action: 'settings.updated',
      before: { recordEmbeddingInputs: true },
      after: { recordEmbeddingInputs: false },
    });
    await t.http().patch('/v2/settings').set(as()).send({ recordEmbeddingInputs: true }).expect(200);
    await client.embeddings.create({ model: 'search-vectors@production', input: 'public memo' });
    expect((await requestLogRows(t, p.projectId)).at(-1)).toMatchObject({ do_not_record: false, request_data: { input: 'public memo' } });
  });

  it('parley.yaml declares an entry (no template), deploys it, refuses one that cannot embed, and exports it back', async () => {
    const apply = (yaml: string) => t.http().post('/v2/apply').set(as()).send({ yaml });
    const file = (model: string, extra = '') => `
workspace: ${p.workspace}
project: ${p.project}
prompts:
  - slug: faq-vectors
    kind: embedding
    provider: local
    model: ${model}
    parameters: { dimensions: 32 }${extra}
    deploy: [staging]
`;
    const refused = await apply(file('echo')).expect(400);
    expect(refused.body.error.details.join('\n')).toMatch(
      /prompts\[0\]\.model \(line \d+\): The local provider embeds with 'local\/embed' only/,
    );
    const withTemplate = await apply(file('embed', '\n    template: [{ role: user, content: hi }]')).expect(400);
    expect(withTemplate.body.error.details.join('\n')).toMatch(/prompts\[0\]\.template.*an embedding entry has no template/);
    expect((await t.http().get('/v2/prompts/faq-vectors').set(as())).status).toBe(404);

    const applied = await apply(file('embed')).expect(200);
    expect(applied.body.prompts).toEqual([{ slug: 'faq-vectors', kind: 'embedding', action: 'created', version: 1 }]);
    const res = await client.embeddings.create({ model: 'faq-vectors@staging', input: 'hello', encoding_format: 'float' });
    expect(res.data[0].embedding).toEqual(localEmbedding('hello', 32).map(Math.fround));

    const exported = await t.http().get('/v2/export').set(as()).expect(200);
    const entry = parse(exported.text).prompts.find((x: { slug: string }) => x.slug === 'faq-vectors');
    expect(entry).toEqual({
      slug: 'faq-vectors',
      kind: 'embedding',
      provider: 'local',
      model: 'embed',
      parameters: { dimensions: 32 },
      deploy: ['staging'],
    });
    expect((await apply(exported.text).expect(200)).body.changed).toBe(false);
  });
});
