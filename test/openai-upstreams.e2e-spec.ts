import OpenAI, { APIError, BadRequestError, RateLimitError } from 'openai';

import {
  anthropicEvents,
  anthropicJson,
  anthropicMessage,
  anthropicStream,
  startFakeAnthropicUpstream,
} from './fakes/fake-anthropic-upstream';
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
import { addProviderCredential, deploy, INVOKE_APP_ENV, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** Issue 9: the openai SDK on `/v1` through the fake OpenAI-compatible and Anthropic upstreams. */
describe('/v1/chat/completions through the openai SDK: OpenAI-compatible and Anthropic upstreams', () => {
  let t: TestApp;
  let p: TestProject;
  let client: OpenAI;
  let openaiFake: FakeUpstream;
  let anthropicFake: FakeUpstream;

  const user = (content: string) => ({ role: 'user' as const, content });
  const lastLog = async () => (await requestLogRows(t, p.projectId)).at(-1)!;
  const weather = {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  };

  beforeAll(async () => {
    openaiFake = await startFakeOpenAIUpstream();
    anthropicFake = await startFakeAnthropicUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    const baseUrl = await listen(t);
    p = await createProject(t);
    client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: openaiFake.url, apiKey: 'sk-up' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anthropicFake.url, apiKey: 'sk-ant' });
    await deploy(t, p, {
      slug: 'remote',
      provider: 'upstream',
      model: 'gpt-stored',
      parameters: { temperature: 0.2 },
      template: [{ role: 'system', content: 'Be {{tone}}.' }],
    });
  });
  afterAll(async () => {
    await t.close();
    await openaiFake.close();
    await anthropicFake.close();
  });

  it("calls <provider>/<model> directly, passing OpenAI's fields on to the upstream", async () => {
    const completion = await client.chat.completions.create({
      model: 'upstream/gpt-direct',
      messages: [{ role: 'developer', content: 'Short.' }, user('how are you')],
      n: 1,
      seed: 7,
      stop: ['END'],
      max_completion_tokens: 50,
      user: 'u-1',
      presence_penalty: 0.5,
      metadata: { ticket: 'T-9' },
    });
    expect(completion.choices[0].message).toEqual({ role: 'assistant', content: 'how are you', refusal: null });
    expect(completion.model).toBe('gpt-direct');
    const sent = openaiFake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-up');
    expect(sent.body).toMatchObject({
      model: 'gpt-direct',
      n: 1,
      seed: 7,
      stop: ['END'],
      max_completion_tokens: 50,
      user: 'u-1',
      presence_penalty: 0.5,
    });
    expect(sent.body.messages).toEqual([{ role: 'developer', content: 'Short.' }, user('how are you')]);
    expect(sent.body.metadata).toBeUndefined();
    expect(await lastLog()).toMatchObject({
      prompt_slug: 'upstream/gpt-direct',
      provider_name: 'upstream',
      metadata: { ticket: 'T-9' },
      prompt_tokens: 10,
      completion_tokens: 3,
    });
  });

  it('sends response_format json_schema to the upstream as given', async () => {
    const responseFormat = {
      type: 'json_schema' as const,
      json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
    };
    openaiFake.setNext(openaiJson(openaiCompletion({ content: '{"ok":true}' })));
    const completion = await client.chat.completions.create({
      model: 'remote',
      messages: [user('json please')],
      variables: { tone: 'exact' },
      response_format: responseFormat,
    } as never);
    expect(JSON.parse(completion.choices[0].message.content!)).toEqual({ ok: true });
    const sent = openaiFake.requests.at(-1)!.body;
    expect(sent.response_format).toEqual(responseFormat);
    // The deployment's template first, its stored model and settings as defaults.
    expect(sent).toMatchObject({
      model: 'gpt-stored',
      temperature: 0.2,
      messages: [{ role: 'system', content: 'Be exact.' }, user('json please')],
    });
  });

  it('completes a tool-call round trip, streamed tool-call deltas assembled by finalChatCompletion()', async () => {
    openaiFake.setNext(
      openaiStream(openaiChunks({ toolCalls: [{ id: 'call_1', name: 'get_weather', argumentPieces: ['{"city":', '"Oslo"}'] }] })),
    );
    const runner = client.chat.completions.stream({
      model: 'upstream/gpt-tools',
      messages: [user('weather in Oslo?')],
      tools: [weather],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    const first = await runner.finalChatCompletion();
    const call = first.choices[0].message.tool_calls![0];
    expect(call).toMatchObject({ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(openaiFake.requests.at(-1)!.body).toMatchObject({
      tools: [weather],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      stream: true,
    });

    openaiFake.setNext(openaiJson(openaiCompletion({ content: 'Sunny in Oslo' })));
    const second = await client.chat.completions.create({
      model: 'upstream/gpt-tools',
      tools: [weather],
      messages: [
        user('weather in Oslo?'),
        first.choices[0].message as never,
        { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' },
      ],
    });
    expect(second.choices[0].message.content).toBe('Sunny in Oslo');
    expect(openaiFake.requests.at(-1)!.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' },
    ]);
  });

  it('ends a stream whose upstream drops mid-way with one OpenAI-shaped error event the SDK raises', async () => {
    openaiFake.setNext({
      type: 'sse',
      events: openaiChunks({ content: ['half', ' a'] })
        .slice(0, 2)
        .map((data) => ({ data })),
      dropConnection: true,
    });
    const stream = await client.chat.completions.create(
      { model: 'upstream/gpt-drop', messages: [user('x')], stream: true },
      { maxRetries: 0 },
    );
    const failure = await (async () => {
      for await (const _chunk of stream);
    })().catch((e) => e);
    expect(failure).toBeInstanceOf(APIError);
    expect(failure.error).toMatchObject({ type: 'server_error', param: null, message: expect.any(String) });
    expect(await lastLog()).toMatchObject({ status: 502, prompt_slug: 'upstream/gpt-drop', stream: true });
  });

  it('asks the upstream for n choices and answers each', async () => {
    const two = openaiCompletion({ content: 'first' });
    two.choices.push({ ...two.choices[0], index: 1, message: { role: 'assistant', content: 'second' } });
    openaiFake.setNext(openaiJson(two));
    const completion = await client.chat.completions.create({ model: 'upstream/gpt-n', messages: [user('two please')], n: 2 });
    expect(completion.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, 'first'],
      [1, 'second'],
    ]);
    expect(openaiFake.requests.at(-1)!.body.n).toBe(2);
  });

  it('raises RateLimitError with Retry-After when the upstream keeps answering 429', async () => {
    openaiFake.setNext(openaiError(429, 'slow down', { 'Retry-After': '120' }));
    const limited = await client.chat.completions
      .create({ model: 'upstream/gpt-busy', messages: [user('x')] }, { maxRetries: 0 })
      .catch((e) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('120');
    expect(limited.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      message: expect.stringContaining('slow down'),
    });
    expect(await lastLog()).toMatchObject({ status: 429, prompt_slug: 'upstream/gpt-busy' });
  });

  it('translates to Anthropic and back, plain and streamed with usage', async () => {
    anthropicFake.setNext(anthropicJson(anthropicMessage({ text: 'Hello from Claude', model: 'claude-x' })));
    const plain = await client.chat.completions.create({
      model: 'claude/claude-x',
      messages: [{ role: 'system', content: 'Be brief.' }, user('hi')],
      max_tokens: 100,
    });
    expect(plain.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello from Claude' }, finish_reason: 'stop' });
    expect(plain.usage).toEqual({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    expect(anthropicFake.requests.at(-1)!.body).toMatchObject({
      model: 'claude-x',
      system: 'Be brief.',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });

    anthropicFake.setNext(
      anthropicStream(anthropicEvents({ text: ['Streamed', ' reply'], model: 'claude-x', usage: { input_tokens: 9, output_tokens: 2 } })),
    );
    const stream = await client.chat.completions.create({
      model: 'claude/claude-x',
      messages: [user('stream it')],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Streamed reply');
    expect(usage).toEqual({ prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 });
  });

  it('refuses with 400 and param a field the Anthropic adapter cannot honour, without calling it', async () => {
    const calls = anthropicFake.requests.length;
    const refused = await client.chat.completions.create({ model: 'claude/claude-x', messages: [user('x')], seed: 1 }).catch((e) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused.param).toBe('seed');
    expect(anthropicFake.requests.length).toBe(calls);
  });

  it("lists the providers' models the deployments use", async () => {
    const ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(['remote@production', 'local/echo', 'local/embed', 'upstream/gpt-stored']);
    expect(await client.models.retrieve('claude/claude-any')).toEqual({
      id: 'claude/claude-any',
      object: 'model',
      created: 0,
      owned_by: 'claude',
    });
  });
});
