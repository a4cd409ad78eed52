import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

import { FakeUpstream, openaiCompletion, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import {
  addProviderCredential,
  deploy,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  openaiClient,
  requestLogRows,
  threadMessageRows,
} from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 43 item 5: the exact response cache (docs/routing.md, "Response cache"). A version with
 * `cache` answers a repeated request from the stored answer, without an upstream request, on every
 * surface, as JSON and as a stream the official SDKs iterate; the hit is logged with cost 0.
 */
describe('response cache: hits on every surface', () => {
  let t: TestApp;
  let p: TestProject;
  let fake: FakeUpstream;
  let baseUrl: string;
  let openai: OpenAI;

  const user = (content: string) => ({ role: 'user' as const, content });
  const cacheRows = (projectId: string): Promise<Array<{ key: string; completion: any; tokens: any }>> =>
    t.dataSource.query('SELECT key, completion, tokens FROM response_cache WHERE project_id = $1', [projectId]);
  const logById = async (id: string) => (await requestLogRows(t, p.projectId)).find((row) => row.id === id)!;
  /** The next upstream answer, which no echo of the request could produce: a second answer with it came from the cache. */
  const answerNext = (content: string) =>
    fake.setNext(openaiJson(openaiCompletion({ content, usage: { prompt_tokens: 11, completion_tokens: 7 } })));

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
    const template = [{ role: 'system', content: 'Be {{tone}}.' }];
    await deploy(t, p, {
      slug: 'cached',
      provider: 'upstream',
      model: 'gpt-c',
      template,
      variables: { tone: 'brief' },
      cache: { ttlSeconds: 600 },
    });
    await deploy(t, p, { slug: 'helper', kind: 'assistant', provider: 'upstream', model: 'gpt-c', cache: { ttlSeconds: 600 } });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('the spec invoke route: the second identical call is a hit, with no upstream request, logged with cost 0', async () => {
    const body = { variables: { tone: 'kind' }, messages: [user('spec json')] };
    answerNext('stored answer one');
    const first = await t.http().post(invokePath(p, 'cached')).set('X-API-Key', p.key).send(body).expect(200);
    expect(first.headers['x-parley-cache']).toBe('miss');
    const upstream = fake.requests.length;
    const second = await t.http().post(invokePath(p, 'cached')).set('X-API-Key', p.key).send(body).expect(200);
    expect(fake.requests.length).toBe(upstream);
    expect(second.headers['x-parley-cache']).toBe('hit');
    expect(second.headers['x-parley-version']).toBe('1');
    expect(second.body.choices).toEqual(first.body.choices);
    expect(second.body.choices[0].message.content).toBe('stored answer one');
    expect(second.body.usage).toEqual(first.body.usage);
    // A new answer, a new id.
    expect(second.body.id).not.toBe(first.body.id);

    const missLog = await logById(first.headers['x-parley-log-id']);
    const hitLog = await logById(second.headers['x-parley-log-id']);
    expect(missLog).toMatchObject({ cache_hit: false, status: 200 });
    expect(hitLog).toMatchObject({
      cache_hit: true,
      status: 200,
      cost_usd: '0',
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
    });
    expect(hitLog.provider_response.choices[0].message.content).toBe('stored answer one');
    const detail = await t.http().get(`/v2/logs/${hitLog.id}`).set('X-API-Key', p.key).expect(200);
    expect(detail.body).toMatchObject({ cacheHit: true, costUsd: '0', usage: { prompt_tokens: 11, completion_tokens: 7 } });
    const list = await t.http().get('/v2/logs?limit=100').set('X-API-Key', p.key).expect(200);
    expect(list.body.data.find((log: { id: string }) => log.id === missLog.id).cacheHit).toBe(false);
    // One entry, this project's, with the stored tokens by kind.
    const rows = await cacheRows(p.projectId);
    expect(rows.filter((row) => row.completion.choices[0].message.content === 'stored answer one')).toHaveLength(1);
  });

  it('the spec invoke route streams a hit as a stream the openai SDK iterates', async () => {
    const sdk = openaiClient(baseUrl, p, 'cached');
    answerNext('streamable answer');
    const request = { model: 'gpt-c', messages: [user('spec stream')] };
    const first = await sdk.chat.completions.create(request);
    const upstream = fake.requests.length;
    const { data: stream, response } = await sdk.chat.completions.create({ ...request, stream: true }).withResponse();
    expect(response.headers.get('x-parley-cache')).toBe('hit');
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(fake.requests.length).toBe(upstream);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(first.choices[0].message.content);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(await logById(response.headers.get('x-parley-log-id')!)).toMatchObject({ cache_hit: true, stream: true, cost_usd: '0' });
  });

  it('/v1/chat/completions: a hit as JSON and as a stream, a streamed miss stored for the next call', async () => {
    const request = { model: 'cached', messages: [user('chat completions')] };
    const { data: streamed, response: missed } = await openai.chat.completions
      .create({ ...request, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(missed.headers.get('x-parley-cache')).toBe('miss');
    let text = '';
    for await (const chunk of streamed) text += chunk.choices[0]?.delta.content ?? '';
    const upstream = fake.requests.length;
    const { data: hit, response } = await openai.chat.completions.create(request).withResponse();
    expect(response.headers.get('x-parley-cache')).toBe('hit');
    expect(hit.choices[0].message.content).toBe(text);
    const { data: again, response: streamedHit } = await openai.chat.completions
      .create({ ...request, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(streamedHit.headers.get('x-parley-cache')).toBe('hit');
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of again) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(text);
    // include_usage: the last chunk carries the stored answer's usage.
    expect(chunks.at(-1)!.usage).toEqual(hit.usage);
    expect(fake.requests.length).toBe(upstream);
  });

  it('/v1/responses: a hit as a Response and as typed events', async () => {
    answerNext('a response from upstream');
    const first = await openai.responses.create({ model: 'cached', input: 'responses api' });
    const upstream = fake.requests.length;
    const { data: second, response } = await openai.responses.create({ model: 'cached', input: 'responses api' }).withResponse();
    expect(response.headers.get('x-parley-cache')).toBe('hit');
    expect(second.output_text).toBe('a response from upstream');
    expect(second.id).not.toBe(first.id);
    const { data: stream, response: streamed } = await openai.responses
      .create({ model: 'cached', input: 'responses api', stream: true })
      .withResponse();
    expect(streamed.headers.get('x-parley-cache')).toBe('hit');
    let text = '';
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe('a response from upstream');
    expect(types.at(-1)).toBe('response.completed');
    expect(fake.requests.length).toBe(upstream);
    // The stored Response of a hit is retrievable, as any other.
    expect((await openai.responses.retrieve(second.id)).output_text).toBe('a response from upstream');
  });

  it('/v1/messages: a hit as a Message and as the stream the Anthropic SDK reads', async () => {
    const anthropic = new Anthropic({ baseURL: baseUrl, apiKey: p.key, maxRetries: 0 });
    answerNext('an answer for messages');
    const request = { model: 'cached', max_tokens: 50, messages: [user('messages api')] };
    await anthropic.messages.create(request);
    const upstream = fake.requests.length;
    const { data: hit, response } = await anthropic.messages.create(request).withResponse();
    expect(response.headers.get('x-parley-cache')).toBe('hit');
    expect(hit.content).toEqual([expect.objectContaining({ type: 'text', text: 'an answer for messages' })]);
    const { data: stream, response: streamed } = await anthropic.messages.create({ ...request, stream: true }).withResponse();
    expect(streamed.headers.get('x-parley-cache')).toBe('hit');
    let text = '';
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    expect(text).toBe('an answer for messages');
    expect(fake.requests.length).toBe(upstream);
  });

  it("a hit on an assistant appends the thread's turns as any answer does", async () => {
    answerNext('the assistant says');
    const path = invokePath(p, 'helper');
    const first = await t
      .http()
      .post(path)
      .set('X-API-Key', p.key)
      .send({ messages: [user('to a thread')] })
      .expect(200);
    const upstream = fake.requests.length;
    const second = await t
      .http()
      .post(path)
      .set('X-API-Key', p.key)
      .send({ messages: [user('to a thread')] })
      .expect(200);
    expect(second.headers['x-parley-cache']).toBe('hit');
    expect(fake.requests.length).toBe(upstream);
    const threadId = second.headers['x-parley-thread-id'];
    expect(threadId).not.toBe(first.headers['x-parley-thread-id']);
    const turns = await threadMessageRows(t, p.projectId, threadId);
    expect(turns.map((turn) => turn.content[0])).toEqual([
      expect.objectContaining({ role: 'user', content: 'to a thread' }),
      expect.objectContaining({ role: 'assistant', content: 'the assistant says' }),
    ]);
    expect(turns.every((turn) => turn.request_log_id === second.headers['x-parley-log-id'])).toBe(true);
  });
});
