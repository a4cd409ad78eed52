import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

import { anthropicEvents, anthropicStream, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import {
  FakeUpstream,
  openaiChunks,
  openaiCompletion,
  openaiError,
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, invokePath, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 43: a version's routing block falls over from a failing target to the next (docs/routing.md),
 * on the spec's invoke route and /v1/chat/completions with the official SDK; the answer names the
 * target that served it and how many were tried, and the request log records every attempt.
 */
describe('routing: failover between targets', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  let sdk: OpenAI;
  let alpha: FakeUpstream;
  let beta: FakeUpstream;
  let claude: FakeUpstream;

  const user = (content: string) => ({ role: 'user' as const, content });
  const post = (path: string, body: object) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': p.key },
      body: JSON.stringify(body),
    });
  const logOf = async (id: string) => (await requestLogRows(t, p.projectId)).find((l) => l.id === id)!;
  /** A data event's JSON, or `[DONE]`, from an SSE body. */
  const events = (raw: string) =>
    raw
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => frame.slice(6))
      .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));

  /** A prompt whose version routes `alpha/<model>-a` then `beta/<model>-b` by priority; each test its own models (own health). */
  async function routed(slug: string, extra: Record<string, unknown> = {}, kind = 'prompt') {
    const as = { 'X-API-Key': p.key };
    await t.http().post('/v2/prompts').set(as).send({ slug, kind }).expect(200);
    const version = await t
      .http()
      .post(`/v2/prompts/${slug}/versions`)
      .set(as)
      .send({
        template: [{ role: 'system', content: 'Be brief.' }],
        parameters: { temperature: 0.2 },
        routing: {
          strategy: 'priority',
          targets: [
            { provider: 'alpha', model: `${slug}-a` },
            { provider: 'beta', model: `${slug}-b`, parameters: { temperature: 0.9 } },
          ],
          ...extra,
        },
      });
    expect(version.status).toBe(200);
    await t.http().post(`/v2/prompts/${slug}/deployments`).set(as).send({ environment: 'production', version: 1 }).expect(200);
  }

  beforeAll(async () => {
    alpha = await startFakeOpenAIUpstream();
    beta = await startFakeOpenAIUpstream();
    claude = await startFakeAnthropicUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
    p = await createProject(t);
    sdk = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'alpha', type: 'openai', baseUrl: alpha.url, apiKey: 'sk-alpha' });
    await addProviderCredential(t, p, { name: 'beta', type: 'openai', baseUrl: beta.url, apiKey: 'sk-beta' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant' });
  });
  afterAll(async () => {
    await t.close();
    await alpha.close();
    await beta.close();
    await claude.close();
  });

  it('answers with target 1 when target 0 answers 500, without retrying target 0; the log has both attempts', async () => {
    await routed('fail500');
    const [alphaBefore, betaBefore] = [alpha.requests.length, beta.requests.length];
    alpha.setNext(openaiError(500, 'alpha is down'));
    beta.setNext(
      openaiJson(openaiCompletion({ content: 'from beta', model: 'fail500-b', usage: { prompt_tokens: 7, completion_tokens: 2 } })),
    );
    const res = await post(invokePath(p, 'fail500'), { messages: [user('hi')] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).toBe('from beta');
    expect(res.headers.get('x-parley-provider')).toBe('beta');
    expect(res.headers.get('x-parley-model')).toBe('fail500-b');
    expect(res.headers.get('x-parley-attempts')).toBe('2');
    expect(res.headers.get('x-parley-version')).toBe('1');
    // No provider retry while another target remains: one request to alpha.
    expect(alpha.requests.length - alphaBefore).toBe(1);
    expect(beta.requests.length - betaBefore).toBe(1);
    const sent = beta.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-beta');
    expect(sent.body).toMatchObject({ model: 'fail500-b', temperature: 0.9 });
    const log = await logOf(res.headers.get('x-parley-log-id')!);
    expect(log).toMatchObject({ status: 200, provider_name: 'beta', model: 'fail500-b', prompt_tokens: 7, completion_tokens: 2 });
    expect(log.attempts).toEqual([
      expect.objectContaining({ provider: 'alpha', model: 'fail500-a', status: 502, reason: 'server_error' }),
      expect.objectContaining({ provider: 'beta', model: 'fail500-b', status: 200, inputTokens: 7, outputTokens: 2 }),
    ]);
    expect(log.attempts[0].error).toContain('alpha is down');
    expect(log.attempts[1]).not.toHaveProperty('error');
    // GET /v2/logs/{id} shows them as stored.
    const detail = await t.http().get(`/v2/logs/${log.id}`).set('X-API-Key', p.key).expect(200);
    expect(detail.body).toMatchObject({ provider: 'beta', model: 'fail500-b', attempts: log.attempts });
  });

  it("keeps an attempt's upstream text out of the log of a doNotRecord call", async () => {
    await routed('private');
    alpha.setNext(openaiError(500, 'echoing the prompt: my hidden words'));
    const res = await fetch(`${base}${invokePath(p, 'private')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': p.key, 'x-parley-do-not-record': 'true' },
      body: JSON.stringify({ messages: [user('my hidden words')] }),
    });
    expect([res.status, res.headers.get('x-parley-attempts')]).toEqual([200, '2']);
    const log = await logOf(res.headers.get('x-parley-log-id')!);
    expect(log.attempts[0]).toMatchObject({
      provider: 'alpha',
      status: 502,
      reason: 'server_error',
      error: expect.stringContaining('[not recorded]'),
    });
    expect(JSON.stringify(log.attempts)).not.toContain('hidden');
  });

  it("does not fall back on the caller's own 400; the error names the one attempt", async () => {
    await routed('fail400');
    const betaBefore = beta.requests.length;
    alpha.setNext(openaiError(400, 'bad temperature'));
    const res = await post(invokePath(p, 'fail400'), { messages: [user('hi')] });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-parley-attempts')).toBe('1');
    expect(res.headers.get('x-parley-provider')).toBe('alpha');
    expect(beta.requests.length).toBe(betaBefore);
    const log = await logOf((await requestLogRows(t, p.projectId)).at(-1)!.id);
    expect(log).toMatchObject({ status: 400, provider_name: 'alpha', model: 'fail400-a' });
    expect(log.attempts).toEqual([
      expect.objectContaining({ provider: 'alpha', status: 400, error: expect.stringContaining('bad temperature') }),
    ]);
    expect(log.attempts[0]).not.toHaveProperty('reason');
  });

  it('falls over through the SDK on /v1 when target 0 is rate limited, and names target 1', async () => {
    await routed('fail429');
    alpha.setNext(openaiError(429, 'slow down'));
    beta.setNext(openaiJson(openaiCompletion({ content: 'beta here', model: 'fail429-b' })));
    const { data, response } = await sdk.chat.completions.create({ model: 'fail429@production', messages: [user('hi')] }).withResponse();
    expect(data.choices[0].message.content).toBe('beta here');
    expect([
      response.headers.get('x-parley-provider'),
      response.headers.get('x-parley-model'),
      response.headers.get('x-parley-attempts'),
    ]).toEqual(['beta', 'fail429-b', '2']);
    const log = await logOf(response.headers.get('x-parley-log-id')!);
    expect(log.attempts.map((a: any) => [a.provider, a.status, a.reason])).toEqual([
      ['alpha', 429, 'rate_limit'],
      ['beta', 200, undefined],
    ]);
  });

  it('streams one clean stream from target 1 when target 0 fails before its first content event (/v1, SDK)', async () => {
    await routed('streamfail');
    // A role-only chunk, then the connection drops: no content reached the caller.
    alpha.setNext(openaiStream(openaiChunks({ content: [] }).slice(0, 1), { dropConnection: true }));
    beta.setNext(openaiStream(openaiChunks({ content: ['Hello', ' from', ' beta'], model: 'streamfail-b' })));
    const { data: stream, response } = await sdk.chat.completions
      .create({ model: 'streamfail@production', messages: [user('hi')], stream: true })
      .withResponse();
    expect(response.headers.get('x-parley-provider')).toBe('beta');
    expect(response.headers.get('x-parley-model')).toBe('streamfail-b');
    expect(response.headers.get('x-parley-attempts')).toBe('2');
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hello from beta');
    // The role is announced once: alpha's role-only chunk was never sent.
    expect(chunks.filter((c) => c.choices[0]?.delta?.role === 'assistant')).toHaveLength(1);
    const log = await logOf(response.headers.get('x-parley-log-id')!);
    expect(log).toMatchObject({ status: 200, provider_name: 'beta', model: 'streamfail-b', stream: true });
    expect(log.attempts.map((a: any) => [a.provider, a.status, a.reason])).toEqual([
      ['alpha', 502, 'connection'],
      ['beta', 200, undefined],
    ]);
    expect(log.attempts[1].ttftMs).toEqual(expect.any(Number));
  });

  it('falls over when target 0 sends no content within firstTokenTimeoutMs', async () => {
    await routed('stall', { firstTokenTimeoutMs: 300 });
    alpha.setNext(openaiStream(openaiChunks({ content: ['late'] }), { delayMs: 2_000 }));
    beta.setNext(openaiStream(openaiChunks({ content: ['on time'], model: 'stall-b' })));
    const started = Date.now();
    const res = await post(invokePath(p, 'stall'), { messages: [user('hi')], stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-parley-provider')).toBe('beta');
    const raw = await res.text();
    expect(Date.now() - started).toBeLessThan(1_900);
    const data = events(raw);
    expect(data.at(-1)).toBe('[DONE]');
    expect(data.map((e: any) => e.choices?.[0]?.delta?.content ?? '').join('')).toBe('on time');
    const log = await logOf(res.headers.get('x-parley-log-id')!);
    expect(log.attempts.map((a: any) => [a.provider, a.status, a.reason])).toEqual([
      ['alpha', 504, 'first_token_timeout'],
      ['beta', 200, undefined],
    ]);
  });

  it('ends a stream cut after its first content event with an explicit error event, never [DONE], and does not fall over', async () => {
    await routed('streamcut');
    const betaBefore = beta.requests.length;
    alpha.setNext(openaiStream(openaiChunks({ content: ['Hel', 'lo'] }).slice(0, 2), { dropConnection: true }));
    const res = await post(invokePath(p, 'streamcut'), { messages: [user('hi')], stream: true });
    expect(res.status).toBe(200);
    expect([res.headers.get('x-parley-provider'), res.headers.get('x-parley-attempts')]).toEqual(['alpha', '1']);
    const data = events(await res.text());
    expect(data).not.toContain('[DONE]');
    expect(data.map((e: any) => e.choices?.[0]?.delta?.content ?? '').join('')).toBe('Hel');
    expect(data.at(-1)).toEqual({ error: expect.objectContaining({ message: expect.any(String) }) });
    expect(beta.requests.length).toBe(betaBefore);
    const log = await logOf(res.headers.get('x-parley-log-id')!);
    expect(log).toMatchObject({ status: 502, provider_name: 'alpha', model: 'streamcut-a' });
    expect(log.attempts).toEqual([expect.objectContaining({ provider: 'alpha', status: 502, reason: 'connection' })]);
  });

  it('names the serving target on /v1/responses and /v1/messages too', async () => {
    await routed('surfaces');
    alpha.setNext(openaiError(503, 'busy'), openaiError(503, 'busy'));
    beta.setNext(
      openaiJson(openaiCompletion({ content: 'responses from beta', model: 'surfaces-b' })),
      openaiJson(openaiCompletion({ content: 'messages from beta', model: 'surfaces-b' })),
    );
    const { data, response } = await sdk.responses.create({ model: 'surfaces', input: 'hi' }).withResponse();
    expect(data.output_text).toBe('responses from beta');
    expect([
      response.headers.get('x-parley-provider'),
      response.headers.get('x-parley-model'),
      response.headers.get('x-parley-attempts'),
    ]).toEqual(['beta', 'surfaces-b', '2']);
    const message = await new Anthropic({ baseURL: base, apiKey: p.key, maxRetries: 0 }).messages
      .create({ model: 'surfaces', max_tokens: 50, messages: [user('hi')] })
      .withResponse();
    expect(message.data.content).toEqual([expect.objectContaining({ type: 'text', text: 'messages from beta' })]);
    expect([message.response.headers.get('x-parley-provider'), message.response.headers.get('x-parley-attempts')]).toEqual(['beta', '2']);
  });

  it('keeps a thread on the target that served its last turn while that target is available', async () => {
    await routed('sticky', {}, 'assistant');
    const alphaBefore = alpha.requests.length;
    alpha.setNext(openaiError(500, 'down'));
    const first = await post(invokePath(p, 'sticky'), { messages: [user('one')] });
    expect([first.status, first.headers.get('x-parley-provider')]).toEqual([200, 'beta']);
    const threadId = first.headers.get('x-parley-thread-id')!;
    // Alpha is healthy again, but the thread sticks to beta.
    const second = await post(invokePath(p, 'sticky'), { messages: [user('two')], threadId });
    expect([second.status, second.headers.get('x-parley-provider'), second.headers.get('x-parley-attempts')]).toEqual([200, 'beta', '1']);
    expect(alpha.requests.length - alphaBefore).toBe(1);
    expect((await logOf(second.headers.get('x-parley-log-id')!)).attempts).toEqual([
      expect.objectContaining({ provider: 'beta', status: 200 }),
    ]);
  });

  it('counts the prompt tokens a target abandoned before content reported, in the log and the usage rollups', async () => {
    const as = { 'X-API-Key': p.key };
    await t.http().post('/v2/prompts').set(as).send({ slug: 'billed', kind: 'prompt' }).expect(200);
    const targets = [
      { provider: 'claude', model: 'billed-claude' },
      { provider: 'beta', model: 'billed-b' },
    ];
    await t
      .http()
      .post('/v2/prompts/billed/versions')
      .set(as)
      .send({ template: [{ role: 'system', content: 'Be brief.' }], routing: { targets } })
      .expect(200);
    await t.http().post('/v2/prompts/billed/deployments').set(as).send({ environment: 'production', version: 1 }).expect(200);
    // message_start counts 30 prompt tokens, then the upstream is overloaded before any text.
    const [start] = anthropicEvents({ text: ['never'], usage: { input_tokens: 30, output_tokens: 0 } });
    claude.setNext(
      anthropicStream([start, { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }]),
    );
    beta.setNext(openaiStream(openaiChunks({ content: ['ok'], model: 'billed-b', usage: { prompt_tokens: 5, completion_tokens: 1 } })));
    const res = await post(invokePath(p, 'billed'), { messages: [user('hi')], stream: true });
    expect(events(await res.text()).at(-1)).toBe('[DONE]');
    expect([res.headers.get('x-parley-provider'), res.headers.get('x-parley-attempts')]).toEqual(['beta', '2']);
    const log = await logOf(res.headers.get('x-parley-log-id')!);
    expect(log.attempts.map((a: any) => [a.provider, a.reason, a.inputTokens])).toEqual([
      ['claude', 'server_error', 30],
      ['beta', undefined, 5],
    ]);
    // Anthropic's message_start also reports 1 output token (billed): 1 + beta's 1.
    expect(log).toMatchObject({ provider_name: 'beta', prompt_tokens: 35, uncached_input_tokens: 35, output_tokens: 2 });
    const [rollup] = await t.dataSource.query(
      'SELECT sum(uncached_input_tokens)::int AS input FROM usage_rollups WHERE project_id = $1 AND prompt_slug = $2',
      [p.projectId, 'billed'],
    );
    expect(rollup.input).toBe(35);
  });

  it('names the target of a call without routing too, with one attempt and no attempts column', async () => {
    alpha.setNext(openaiJson(openaiCompletion({ content: 'direct', model: 'gpt-direct' })));
    const { response } = await sdk.chat.completions.create({ model: 'alpha/gpt-direct', messages: [user('hi')] }).withResponse();
    expect([
      response.headers.get('x-parley-provider'),
      response.headers.get('x-parley-model'),
      response.headers.get('x-parley-attempts'),
    ]).toEqual(['alpha', 'gpt-direct', '1']);
    expect((await logOf(response.headers.get('x-parley-log-id')!)).attempts).toBeNull();
  });
});
