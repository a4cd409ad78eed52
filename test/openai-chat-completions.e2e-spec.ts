import OpenAI, { APIError, AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

import { createProject, TestProject } from './support/factories';
import { UUID } from './support/http';
import { deploy, failNextTurnWrite, INVOKE_APP_ENV, listen, requestLogRows, threadMessageRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 9: the official `openai` SDK with only `baseURL` and `apiKey` set, against `/v1` on the
 * built-in `local/echo` and on deployed prompts and assistants (docs/openai-compatibility.md).
 */
describe('/v1/chat/completions through the openai SDK: local provider and deployments', () => {
  let t: TestApp;
  let p: TestProject;
  let client: OpenAI;
  let baseUrl: string;

  const user = (content: string) => ({ role: 'user' as const, content });
  const lastLog = async () => (await requestLogRows(t, p.projectId)).at(-1)!;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key });
    await deploy(t, p, {
      slug: 'greeter',
      template: [{ role: 'user', content: 'Tell me about {{topic}}' }],
      variables: { topic: 'nothing' },
    });
    await deploy(t, p, {
      slug: 'greeter',
      template: [{ role: 'user', content: 'Version two on {{topic}}' }],
      environments: ['production', 'staging'],
    });
    await deploy(t, p, { slug: 'helper', kind: 'assistant', parameters: { max_tokens: 3 } });
  });
  afterAll(() => t.close());

  it("answers a plain call on local/echo in OpenAI's completion shape, and logs it as a direct call", async () => {
    const completion = await client.chat.completions.create({ model: 'local/echo', messages: [user('hello from the sdk')] });
    expect(completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'echo',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'hello from the sdk', refusal: null }, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 },
    });
    expect(await lastLog()).toMatchObject({
      status: 200,
      prompt_slug: 'local/echo',
      environment: '',
      kind: 'prompt',
      provider_name: 'local',
      model: 'echo',
      url: '/v1/chat/completions',
      prompt_id: null,
      deployment_id: null,
      stream: false,
      request_data: { model: 'local/echo', messages: [user('hello from the sdk')] },
    });
  });

  it('streams chat.completion.chunk events with a final usage chunk when include_usage is asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'local/echo',
      messages: [user('one two three')],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id)).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('one two three');
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(await lastLog()).toMatchObject({ status: 200, stream: true, total_tokens: 6 });
  });

  it("supports the SDK's .stream() helper and finalChatCompletion()", async () => {
    const runner = client.chat.completions.stream({ model: 'local/echo', messages: [user('assembled by the helper')] });
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(deltas.join('')).toBe('assembled by the helper');
    expect(final.choices[0].message).toMatchObject({ role: 'assistant', content: 'assembled by the helper' });
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it('calls a deployed prompt by slug with variables, its template first; @env:version pins a version', async () => {
    const deployed = await client.chat.completions.create({ model: 'greeter', messages: [], variables: { topic: 'tea' } } as never);
    expect(deployed.choices[0].message.content).toBe('Version two on tea');
    expect(await lastLog()).toMatchObject({ prompt_slug: 'greeter', environment: 'production', version: 2, variables: { topic: 'tea' } });
    const pinned = await client.chat.completions.create({ model: 'greeter@production:1', messages: [] });
    expect(pinned.choices[0].message.content).toBe('Tell me about nothing');
    expect(await lastLog()).toMatchObject({ prompt_slug: 'greeter', version: 1 });
    const staging = await client.chat.completions.create({ model: 'greeter@staging', messages: [user('from staging')] });
    expect(staging.choices[0].message.content).toBe('from staging');
  });

  it('gives an assistant a new thread per call unless thread_id continues one; the request overrides stored settings', async () => {
    const raw = await client.chat.completions.create({ model: 'helper', messages: [user('a b c d e')] }).withResponse();
    const threadId = raw.response.headers.get('x-parley-thread-id')!;
    expect(threadId).toMatch(UUID);
    expect(raw.data.choices[0]).toMatchObject({ message: { content: 'a b c' }, finish_reason: 'length' });
    const next = await client.chat.completions
      .create({ model: 'helper', messages: [user('f g h i')], max_tokens: 10, thread_id: threadId } as never)
      .withResponse();
    expect(next.response.headers.get('x-parley-thread-id')).toBe(threadId);
    expect(next.data.choices[0].message.content).toBe('f g h i');
    const rows = await threadMessageRows(t, p.projectId, threadId);
    expect(rows.map((r) => r.content)).toEqual([
      [user('a b c d e')],
      [{ role: 'assistant', content: 'a b c' }],
      [user('f g h i')],
      [{ role: 'assistant', content: 'f g h i' }],
    ]);
    const other = await client.chat.completions.create({ model: 'helper', messages: [user('x')] }).withResponse();
    expect(other.response.headers.get('x-parley-thread-id')).not.toBe(threadId);
  });

  it('ends a stream with an OpenAI-shaped 503 error event (no [DONE]) when the reply cannot be stored', async () => {
    failNextTurnWrite();
    const stream = await client.chat.completions.create({ model: 'helper', messages: [user('kept nowhere')], stream: true });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? '');
    })().catch((e) => e);
    jest.restoreAllMocks();
    expect(seen.join('')).toBe('kept nowhere');
    expect(failure).toBeInstanceOf(APIError);
    expect(failure.error).toEqual({ message: 'Database unavailable', type: 'service_unavailable', param: null, code: null });
  });

  it('honours x-parley-do-not-record: the log keeps no request or reply text', async () => {
    await client.chat.completions.create(
      { model: 'local/echo', messages: [user('secret words')] },
      { headers: { 'x-parley-do-not-record': 'true' } },
    );
    expect(await lastLog()).toMatchObject({
      status: 200,
      do_not_record: true,
      request_data: null,
      provider_request: null,
      provider_response: null,
    });
  });

  it("raises the SDK's typed errors: AuthenticationError, NotFoundError, BadRequestError with param", async () => {
    const wrongKey = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'pk_not_a_key' });
    const auth = await wrongKey.chat.completions.create({ model: 'local/echo', messages: [user('x')] }).catch((e) => e);
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(auth.status).toBe(401);
    expect(auth.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });

    for (const model of ['no-such-prompt', 'nowhere/gpt-4o', 'greeter@production:9', 'greeter@nowhere']) {
      const missing = await client.chat.completions.create({ model, messages: [user('x')] }).catch((e) => e);
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing.error).toEqual({
        message: `The model '${model}' does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      });
    }

    const cases: Array<[object, string]> = [
      [{ temperature: 5 }, 'temperature'],
      [{ response_format: { type: 'json_object' } }, 'response_format'],
      [{ logit_bias: { 1: 2 } }, 'logit_bias'],
      [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages.[0].role'],
      [{ variables: { topic: 'x' } }, 'variables.topic'],
      [{ stream_options: { include_usage: true } }, 'stream_options'],
    ];
    const before = (await requestLogRows(t, p.projectId)).length;
    for (const [extra, param] of cases) {
      const bad = await client.chat.completions.create({ model: 'local/echo', messages: [user('x')], ...extra } as never).catch((e) => e);
      expect(bad).toBeInstanceOf(BadRequestError);
      expect(bad.param).toBe(param);
      expect(bad.error).toMatchObject({ type: 'invalid_request_error', param, message: expect.any(String) });
    }
    // Refused before any provider call: nothing was logged.
    expect((await requestLogRows(t, p.projectId)).length).toBe(before);
  });

  it("answers a body that is not JSON with OpenAI's 400", async () => {
    const res = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${p.key}`, 'Content-Type': 'application/json' },
      body: '{"model":',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: null } });
  });

  it("lists the deployments and providers' models with models.list() and retrieves one", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model).toEqual({ id: expect.any(String), object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
      ids.push(model.id);
    }
    expect(ids).toEqual(['greeter@production', 'greeter@staging', 'helper@production', 'local/echo', 'local/embed']);
    expect(await client.models.retrieve('greeter@staging')).toMatchObject({
      id: 'greeter@staging',
      owned_by: `${p.workspace}/${p.project}`,
    });
    expect(await client.models.retrieve('local/echo')).toEqual({ id: 'local/echo', object: 'model', created: 0, owned_by: 'local' });
    await expect(client.models.retrieve('nope@production')).rejects.toBeInstanceOf(NotFoundError);
  });
});
