import OpenAI from 'openai';

import { ApiKeysService } from '../src/auth/api-keys.service';
import { localEmbedding } from '../src/providers';
import { fakeEmbedding, FakeUpstream, openaiError, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const MODEL = 'text-embedding-3-small';
const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b));

/** Issue 46: POST /v1/embeddings in OpenAI's format, on the invocation core (keys, limits, usage, cost, logs). */
describe('POST /v1/embeddings (OpenAI-compatible)', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  let client: OpenAI;
  let fake: FakeUpstream;
  const from = new Date(Date.now() - 3_600_000).toISOString();

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
    p = await createProject(t);
    client = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'oai', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: fake.url, apiKey: 'sk-ant' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    t
      .http()
      .post('/v1/embeddings')
      .set('Authorization', `Bearer ${p.key}`)
      .set(headers)
      .send(body as object);

  it('local/embed: deterministic unit vectors, 256 dimensions by default, as floats and as base64 the SDK decodes', async () => {
    const floats = await client.embeddings.create({ model: 'local/embed', input: 'The quick brown fox', encoding_format: 'float' });
    expect(floats).toMatchObject({ object: 'list', model: 'embed', usage: { prompt_tokens: 4, total_tokens: 4 } });
    expect(floats.data).toHaveLength(1);
    const vector = floats.data[0].embedding;
    expect(floats.data[0]).toMatchObject({ object: 'embedding', index: 0 });
    expect(vector).toHaveLength(256);
    expect(norm(vector)).toBeCloseTo(1, 5);
    expect(vector).toEqual(localEmbedding('The quick brown fox').map(Math.fround));

    // No encoding_format: the SDK asks for base64 and decodes it itself.
    const decoded = await client.embeddings.create({ model: 'local/embed', input: 'The quick brown fox' });
    expect(decoded.data[0].embedding).toEqual(vector);
    const raw = await post({ model: 'local/embed', input: 'The quick brown fox', encoding_format: 'base64' }).expect(200);
    const bytes = Buffer.from(raw.body.data[0].embedding, 'base64');
    expect(bytes.length).toBe(256 * 4);
    expect(Array.from({ length: 256 }, (_, i) => bytes.readFloatLE(i * 4))).toEqual(vector);

    const again = await client.embeddings.create({ model: 'local/embed', input: 'The quick brown fox', encoding_format: 'float' });
    expect(again.data[0].embedding).toEqual(vector);
  });

  it('local/embed: batches keep their order, dimensions are honoured, shared words point the same way', async () => {
    const input = ['red apple pie', 'apple pie recipe', 'quantum chromodynamics'];
    const res = await client.embeddings.create({ model: 'local/embed', input, dimensions: 64, encoding_format: 'float' });
    expect(res.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(res.data.every((d) => d.embedding.length === 64)).toBe(true);
    expect(res.usage).toEqual({ prompt_tokens: 8, total_tokens: 8 });
    const [a, b, c] = res.data.map((d) => d.embedding);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c));
    expect(a).toEqual(localEmbedding('red apple pie', 64).map(Math.fround));
    const models = (await client.models.list()).data.map((m) => m.id);
    expect(models).toContain('local/embed');
  });

  it('an OpenAI-compatible upstream: what it received, the vectors back, tokens and cost in the log and in /v2/usage', async () => {
    const before = fake.requests.length;
    const res = await client.embeddings.create({ model: `oai/${MODEL}`, input: ['one', 'two'], dimensions: 4, user: 'u-1' });
    const sent = fake.requests[before];
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.headers.authorization).toBe('Bearer sk-up');
    expect(sent.body).toEqual({ model: MODEL, input: ['one', 'two'], encoding_format: 'float', dimensions: 4, user: 'u-1' });
    expect(res.data.map((d) => d.embedding)).toEqual([fakeEmbedding(0, 4), fakeEmbedding(1, 4)]);
    expect(res.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });

    const log = (await requestLogRows(t, p.projectId)).at(-1)!;
    expect(log).toMatchObject({
      kind: 'embedding',
      prompt_slug: `oai/${MODEL}`,
      provider_name: 'oai',
      model: MODEL,
      url: '/v1/embeddings',
      status: 200,
      stream: false,
      do_not_record: false,
      prompt_tokens: 6,
      completion_tokens: 0,
      total_tokens: 6,
      uncached_input_tokens: 6,
    });
    expect(Number(log.cost_usd)).toBeCloseTo((6 * 0.02) / 1e6, 12);
    expect(log.price_ref).toMatch(/openai\/text-embedding-3-small$/);
    expect(log.request_data).toEqual({
      model: `oai/${MODEL}`,
      input: ['one', 'two'],
      dimensions: 4,
      user: 'u-1',
      encoding_format: 'base64',
    });
    expect(log.parameters).toEqual({ encoding_format: 'base64', input_count: 2, dimensions: 4 });
    // A summary, never the vectors.
    expect(log.provider_response).toEqual({
      object: 'list',
      model: MODEL,
      count: 2,
      dimensions: 4,
      usage: { prompt_tokens: 6, total_tokens: 6 },
    });
    expect(JSON.stringify(log.provider_request)).not.toContain('one');

    const detail = await t.http().get(`/v2/logs/${log.id}`).set('X-API-Key', p.key).expect(200);
    expect(detail.body).toMatchObject({
      kind: 'embedding',
      status: 200,
      usage: { prompt_tokens: 6, completion_tokens: 0, total_tokens: 6 },
    });
    expect(Number(detail.body.costUsd)).toBeCloseTo((6 * 0.02) / 1e6, 12);
    const usage = await t.http().get('/v2/usage').query({ from, group_by: 'model' }).set('X-API-Key', p.key).expect(200);
    const row = usage.body.data.find((r: { model: string }) => r.model === MODEL);
    expect(row).toMatchObject({ calls: 1, tokens: expect.objectContaining({ uncachedInput: 6, total: 6 }) });
    expect(Number(row.costUsd)).toBeCloseTo((6 * 0.02) / 1e6, 12);
  });

  it('token arrays go to an OpenAI-compatible upstream as sent; local/embed refuses them', async () => {
    const before = fake.requests.length;
    await client.embeddings.create({ model: `oai/${MODEL}`, input: [[1, 2, 3], [4]], encoding_format: 'float' });
    expect(fake.requests[before].body.input).toEqual([[1, 2, 3], [4]]);
    const refused = await post({ model: 'local/embed', input: [1, 2, 3] }).expect(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'input' });
  });

  it('x-parley-do-not-record: the log keeps no input; an upstream failure is logged and answered in OpenAI shape', async () => {
    await post({ model: 'local/embed', input: ['secret words'] }, { 'x-parley-do-not-record': 'true' }).expect(200);
    const log = (await requestLogRows(t, p.projectId)).at(-1)!;
    expect(log).toMatchObject({ kind: 'embedding', do_not_record: true, request_data: null, provider_request: null, status: 200 });
    expect(JSON.stringify(log)).not.toContain('secret');

    fake.setNext(openaiError(400, 'bad input here'));
    const failed = await post({ model: `oai/${MODEL}`, input: 'x' }).expect(400);
    expect(failed.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect((await requestLogRows(t, p.projectId)).at(-1)).toMatchObject({ kind: 'embedding', status: 400 });
  });

  it('Idempotency-Key: a retry answers the same vectors without a second call or log', async () => {
    const logs = (await requestLogRows(t, p.projectId)).length;
    const calls = fake.requests.length;
    const body = { model: `oai/${MODEL}`, input: ['same'], encoding_format: 'float' };
    const first = await post(body, { 'Idempotency-Key': 'emb-1' }).expect(200);
    const second = await post(body, { 'Idempotency-Key': 'emb-1' }).expect(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(fake.requests.length).toBe(calls + 1);
    expect((await requestLogRows(t, p.projectId)).length).toBe(logs + 1);
    const other = await post({ ...body, input: ['other'] }, { 'Idempotency-Key': 'emb-1' }).expect(422);
    expect(other.body.error).toHaveProperty('type');
  });

  it.each([
    [{ model: 'local/embed' }, 'input'],
    [{ model: 'local/embed', input: '' }, 'input'],
    [{ model: 'local/embed', input: [] }, 'input'],
    [{ model: 'local/embed', input: [''] }, 'input'],
    [{ model: 'local/embed', input: [1.5] }, 'input'],
    [{ model: 'local/embed', input: Array.from({ length: 2049 }, () => 'a') }, 'input'], // 2049 inputs
    [{ model: 'local/embed', input: 'a', encoding_format: 'int8' }, 'encoding_format'],
    [{ model: 'local/embed', input: 'a', dimensions: 0 }, 'dimensions'],
    [{ model: 'local/embed', input: 'a', dimensions: 5000 }, 'dimensions'],
    [{ model: 'local/embed', input: 'a', colour: 'red' }, 'colour'],
    [{ model: 'local/echo', input: 'a' }, 'model'],
    [{ model: 'claude/claude-x', input: 'a' }, 'model'],
  ])('bad input %# is a 400 in OpenAI shape naming %s, not logged', async (body, param) => {
    const logs = (await requestLogRows(t, p.projectId)).length;
    const res = await post(body).expect(400);
    expect(res.body).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param, code: null } });
    expect((await requestLogRows(t, p.projectId)).length).toBe(logs);
  });

  it('an Anthropic provider names why; unknown models and deployments are 404 model_not_found; not JSON is 400', async () => {
    const anthropic = await post({ model: 'claude/claude-x', input: 'a' }).expect(400);
    expect(anthropic.body.error.message).toMatch(/anthropic provider, which has no embeddings API/);
    for (const model of ['nope/x', 'greeter@production', 'greeter']) {
      const res = await post({ model, input: 'a' }).expect(404);
      expect(res.body.error).toMatchObject({ param: 'model', code: 'model_not_found' });
    }
    const notJson = await t.http().post('/v1/embeddings').set('Authorization', `Bearer ${p.key}`).send([1, 2]).expect(400);
    expect(notJson.body.error.type).toBe('invalid_request_error');
    await expect(client.embeddings.create({ model: 'nope/x', input: 'a' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('a key without invoke is 403 in OpenAI shape; no key is 401', async () => {
    const reader = (await t.app.get(ApiKeysService).issue('project', p.projectId, 'reader', { scopes: ['threads:read'] })).secret;
    const readerClient = new OpenAI({ baseURL: `${base}/v1`, apiKey: reader, maxRetries: 0 });
    await expect(readerClient.embeddings.create({ model: 'local/embed', input: 'a' })).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    const res = await t.http().post('/v1/embeddings').send({ model: 'local/embed', input: 'a' }).expect(401);
    expect(res.body.error).toHaveProperty('type');
  });
});

describe('EMBEDDINGS_RECORD_INPUTS=false', () => {
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await createTestApp({ ...INVOKE_APP_ENV, EMBEDDINGS_RECORD_INPUTS: 'false' });
    p = await createProject(t);
  });
  afterAll(() => t.close());

  it('no embedding input is stored in any log; tokens are', async () => {
    await t
      .http()
      .post('/v1/embeddings')
      .set('Authorization', `Bearer ${p.key}`)
      .send({ model: 'local/embed', input: 'private text' })
      .expect(200);
    const [log] = await requestLogRows(t, p.projectId);
    expect(log).toMatchObject({ kind: 'embedding', do_not_record: true, request_data: null, prompt_tokens: 2 });
    expect(JSON.stringify(log)).not.toContain('private');
  });
});
