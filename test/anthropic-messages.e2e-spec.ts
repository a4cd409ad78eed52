import Anthropic, { AuthenticationError, BadRequestError, NotFoundError } from '@anthropic-ai/sdk';
import type { MessageParam, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';

import { createProject, TestProject } from './support/factories';
import { UUID } from './support/http';
import { deploy, INVOKE_APP_ENV, listen, requestLogRows, threadMessageRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 46: the official `@anthropic-ai/sdk` with only `baseURL` and a project key, against
 * `/v1/messages` on the built-in `local/echo` and on deployed prompts and assistants
 * (docs/anthropic-compatibility.md). Upstream translation and stream faults:
 * test/anthropic-messages-upstreams.e2e-spec.ts.
 */
describe('/v1/messages through the Anthropic SDK: local provider and deployments', () => {
  let t: TestApp;
  let p: TestProject;
  let client: Anthropic;
  let baseUrl: string;

  const user = (content: MessageParam['content']): MessageParam => ({ role: 'user', content });
  const lastLog = async () => (await requestLogRows(t, p.projectId)).at(-1)!;
  const weather = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: {} } };
  const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': p.key }) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    client = new Anthropic({ baseURL: baseUrl, apiKey: p.key, maxRetries: 0 });
    await deploy(t, p, { slug: 'greeter', template: [{ role: 'user', content: 'Tell me about {{topic}}' }], variables: { topic: 'tea' } });
    await deploy(t, p, { slug: 'helper', kind: 'assistant' });
  });
  afterAll(() => t.close());

  it("answers messages.create on local/echo with Anthropic's Message, and logs the call with its tokens", async () => {
    const raw = await client.messages
      .create({ model: 'local/echo', max_tokens: 100, system: 'Be terse.', messages: [user('hello from the sdk')] })
      .withResponse();
    expect(raw.data).toEqual({
      id: expect.stringMatching(/^msg_[A-Za-z0-9]+$/),
      type: 'message',
      role: 'assistant',
      model: 'echo',
      content: [{ type: 'text', text: 'hello from the sdk', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: {
        input_tokens: 6,
        output_tokens: 4,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_creation: null,
        inference_geo: null,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: null,
        speed: null,
      },
    });
    expect(raw.response.headers.get('request-id')).toEqual(expect.any(String));
    expect(raw.response.headers.get('x-parley-log-id')).toMatch(UUID);
    expect(await lastLog()).toMatchObject({
      id: raw.response.headers.get('x-parley-log-id'),
      status: 200,
      url: '/v1/messages',
      prompt_slug: 'local/echo',
      provider_name: 'local',
      stream: false,
      prompt_tokens: 6,
      completion_tokens: 4,
      parameters: { max_tokens: 100 },
      request_data: { model: 'local/echo', max_tokens: 100, system: 'Be terse.', messages: [user('hello from the sdk')] },
    });
  });

  it("streams Anthropic's events: messages.stream() and finalMessage() add up to the same Message", async () => {
    const stream = client.messages.stream({ model: 'local/echo', max_tokens: 100, messages: [user('one two three')] });
    const types: string[] = [];
    const texts: string[] = [];
    stream.on('streamEvent', (event: RawMessageStreamEvent) => types.push(event.type));
    stream.on('text', (delta) => texts.push(delta));
    const final = await stream.finalMessage();
    expect(texts.join('')).toBe('one two three');
    expect(types[0]).toBe('message_start');
    expect(types.filter((type) => type !== 'content_block_delta')).toEqual([
      'message_start',
      'content_block_start',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(final).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      content: [{ type: 'text', text: 'one two three' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 3 },
    });
    expect(await lastLog()).toMatchObject({ status: 200, stream: true, prompt_tokens: 3, completion_tokens: 3 });
  });

  it('names its events on the wire (ping after message_start), with no [DONE]', async () => {
    const res = await post('/v1/messages', { model: 'local/echo', max_tokens: 10, stream: true, messages: [user('hi there')] });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames.map((frame) => frame.split('\n')[0])).toEqual([
      'event: message_start',
      'event: ping',
      'event: content_block_start',
      'event: content_block_delta',
      'event: content_block_delta',
      'event: content_block_stop',
      'event: message_delta',
      'event: message_stop',
    ]);
    expect(JSON.parse(frames[6].split('\n')[1].slice('data: '.length))).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: 2,
        output_tokens: 2,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        output_tokens_details: null,
        server_tool_use: null,
      },
    });
  });

  it('reports stop_sequence and max_tokens stops, whole and streamed', async () => {
    const request = { model: 'local/echo', max_tokens: 100, stop_sequences: ['never', 'STOP'], messages: [user('one two STOP three')] };
    const stopped = await client.messages.create(request);
    expect(stopped).toMatchObject({ content: [{ text: 'one two ' }], stop_reason: 'stop_sequence', stop_sequence: 'STOP' });
    expect(await client.messages.stream(request).finalMessage()).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'STOP' });
    const cut = await client.messages.create({ ...request, stop_sequences: undefined, max_tokens: 2 });
    expect(cut).toMatchObject({ content: [{ text: 'one two' }], stop_reason: 'max_tokens', stop_sequence: null });
    expect((await lastLog()).provider_request).toMatchObject({ max_tokens: 2 });
  });

  it('completes a tool round trip: tool_use (whole and streamed) then the tool_result answered', async () => {
    const asked = await client.messages.create({
      model: 'local/echo',
      max_tokens: 100,
      tools: [weather],
      tool_choice: { type: 'any' },
      messages: [user('Oslo please')],
    });
    expect(asked.stop_reason).toBe('tool_use');
    expect(asked.content).toEqual([
      {
        type: 'tool_use',
        id: expect.stringMatching(/^call_/),
        name: 'get_weather',
        input: { input: 'Oslo please' },
        caller: { type: 'direct' },
      },
    ]);
    const streamed = await client.messages
      .stream({ model: 'local/echo', max_tokens: 100, tools: [weather], messages: [user("What's the weather in Oslo?")] })
      .finalMessage();
    expect(streamed).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'get_weather' }] });
    expect((streamed.content[0] as { input: unknown }).input).toEqual({ input: "What's the weather in Oslo?" });

    const use = asked.content[0] as { id: string };
    const answered = await client.messages.create({
      model: 'local/echo',
      max_tokens: 100,
      tools: [weather],
      messages: [
        user('Oslo please'),
        { role: 'assistant', content: asked.content },
        user([{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: 'Sunny, 21C' }] }]),
      ],
    });
    expect(answered).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Sunny, 21C' }] });
    expect((await lastLog()).provider_request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: use.id, type: 'function', function: { name: 'get_weather', arguments: '{"input":"Oslo please"}' } }],
      },
      { role: 'tool', tool_call_id: use.id, content: [{ type: 'text', text: 'Sunny, 21C' }] },
    ]);
  });

  it('calls a deployment with variables (template first); an assistant gets a thread, continued with thread_id', async () => {
    const deployed = await client.messages.create({
      model: 'greeter@production',
      max_tokens: 50,
      messages: [],
      variables: { topic: 'tea' },
    } as never);
    expect(deployed.content).toEqual([{ type: 'text', text: 'Tell me about tea', citations: null }]);
    expect(await lastLog()).toMatchObject({ prompt_slug: 'greeter', environment: 'production', variables: { topic: 'tea' } });

    const first = await client.messages.create({ model: 'helper', max_tokens: 50, messages: [user('a b c')] }).withResponse();
    const threadId = first.response.headers.get('x-parley-thread-id')!;
    expect(threadId).toMatch(UUID);
    const next = await client.messages
      .create({ model: 'helper', max_tokens: 50, messages: [user('d e')], thread_id: threadId } as never)
      .withResponse();
    expect(next.response.headers.get('x-parley-thread-id')).toBe(threadId);
    expect((await threadMessageRows(t, p.projectId, threadId)).map((row) => row.content)).toEqual([
      [{ role: 'user', content: 'a b c' }],
      [{ role: 'assistant', content: 'a b c' }],
      [{ role: 'user', content: 'd e' }],
      [{ role: 'assistant', content: 'd e' }],
    ]);
  });

  it('counts input tokens as the provider would (local: words of the template and messages), logging nothing', async () => {
    const before = (await requestLogRows(t, p.projectId)).length;
    expect(
      await client.messages.countTokens({ model: 'local/echo', system: 'Be terse.', messages: [user('count these four words')] }),
    ).toEqual({
      input_tokens: 6,
    });
    expect(
      await client.messages.countTokens({ model: 'greeter', messages: [user('and two')], variables: { topic: 'x' } } as never),
    ).toEqual({
      input_tokens: 6,
    });
    expect((await requestLogRows(t, p.projectId)).length).toBe(before);
  });

  it("raises the SDK's typed errors in Anthropic's shape: bad key, bad model, refused fields", async () => {
    const wrongKey = new Anthropic({ baseURL: baseUrl, apiKey: 'pk_not_a_key', maxRetries: 0 });
    const auth = await wrongKey.messages.create({ model: 'local/echo', max_tokens: 5, messages: [user('x')] }).catch((e) => e);
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(auth.error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Invalid API key' },
      request_id: expect.any(String),
    });
    const bearer = new Anthropic({ baseURL: baseUrl, apiKey: null, authToken: p.key, maxRetries: 0 });
    expect((await bearer.messages.create({ model: 'local/echo', max_tokens: 5, messages: [user('bearer')] })).content).toHaveLength(1);

    for (const model of ['no-such-prompt', 'nowhere/claude', 'greeter@nowhere', 'a@b@c']) {
      const missing = await client.messages.create({ model, max_tokens: 5, messages: [user('x')] }).catch((e) => e);
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing.error.error).toEqual({
        type: 'not_found_error',
        message: `model: The model '${model}' does not exist or you do not have access to it.`,
      });
    }

    const before = (await requestLogRows(t, p.projectId)).length;
    const cases: Array<[object, string]> = [
      [{ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 4096 }, 'thinking: provider "local" cannot think'],
      [{ thinking: { type: 'adaptive' } }, "thinking.type: Parley supports thinking {type: 'enabled'"],
      [{ top_k: 5 }, 'top_k: is not supported'],
      [{ temperature: 3 }, 'temperature: Too big'],
      [{ max_tokens: undefined }, 'max_tokens: Field required'],
      [{ service_tier: 'auto' }, "service_tier: is not supported by Parley's /v1/messages"],
      [
        { messages: [user([{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }])] },
        'messages.0.content.0.cache_control: prompt caching',
      ],
      [
        { messages: [user([{ type: 'search_result', source: 's' } as never])] },
        'messages.0.content.0.type: a user content block type must be one of',
      ],
      [
        { messages: [user([{ type: 'tool_result', tool_use_id: 't', is_error: true }])] },
        'messages.0.content.0.is_error: is not supported',
      ],
      [{ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools.0'],
      [{ variables: { topic: 'x' } }, 'variables.topic: a direct provider call has no template variables'],
      [{ nonsense: 1 }, 'nonsense: Extra inputs are not permitted'],
    ];
    for (const [extra, message] of cases) {
      const bad = await client.messages
        .create({ model: 'local/echo', max_tokens: 5, messages: [user('x')], ...extra } as never)
        .catch((e) => e);
      expect([bad.constructor, bad.error?.error?.type]).toEqual([BadRequestError, 'invalid_request_error']);
      expect(bad.error.error.message).toContain(message);
    }
    // Refused before any provider call: nothing was logged.
    expect((await requestLogRows(t, p.projectId)).length).toBe(before);
    const malformed = await fetch(`${baseUrl}/v1/messages`, { method: 'POST', headers: { 'x-api-key': p.key }, body: '{"model":' });
    expect([malformed.status, ((await malformed.json()) as { error: { type: string } }).error.type]).toEqual([
      400,
      'invalid_request_error',
    ]);
  });

  it('replays an Idempotency-Key: the same message id, Idempotent-Replayed, one log', async () => {
    const headers = { 'Idempotency-Key': `anthropic-${Date.now()}` };
    const request = { model: 'local/echo', max_tokens: 10, messages: [user('once only')] };
    const first = await client.messages.create(request, { headers }).withResponse();
    const logs = (await requestLogRows(t, p.projectId)).length;
    const again = await client.messages.create(request, { headers }).withResponse();
    expect(again.data).toEqual(first.data);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect((await requestLogRows(t, p.projectId)).length).toBe(logs);
  });
});
