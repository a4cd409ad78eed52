import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';

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
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const CLAUDE = 'claude-sonnet-4-20250514';
const PDF = Buffer.from('%PDF-1.4 fake').toString('base64');
const PNG = 'iVBORw0KGgo=';

/** A streamed Anthropic message that thinks, then answers: what the fake upstream sends. */
function thinkingEvents(thinking: string, signature: string, text: string) {
  const [start] = anthropicEvents({ model: CLAUDE });
  const push = (data: { type: string; [field: string]: unknown }) => ({ event: data.type, data });
  return [
    start,
    push({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    push({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } }),
    push({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature } }),
    push({ type: 'content_block_stop', index: 0 }),
    push({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '', citations: null } }),
    push({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } }),
    push({ type: 'content_block_stop', index: 1 }),
    push({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 30 } }),
    push({ type: 'message_stop' }),
  ];
}

/** Issue 46: /v1/messages translated to an Anthropic-format and an OpenAI-format upstream and back, field by field. */
describe('/v1/messages through the Anthropic SDK: Anthropic and OpenAI-compatible upstreams', () => {
  let t: TestApp;
  let p: TestProject;
  let client: Anthropic;
  let anthropicFake: FakeUpstream;
  let openaiFake: FakeUpstream;

  const user = (content: MessageParam['content']): MessageParam => ({ role: 'user', content });
  const lastLog = async () => (await requestLogRows(t, p.projectId)).at(-1)!;
  const weather = {
    name: 'get_weather',
    description: 'Weather of a city',
    input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
  };

  beforeAll(async () => {
    anthropicFake = await startFakeAnthropicUpstream();
    openaiFake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    client = new Anthropic({ baseURL: await listen(t), apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anthropicFake.url, apiKey: 'sk-ant' });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: openaiFake.url, apiKey: 'sk-up' });
  });
  afterAll(async () => {
    await t.close();
    await anthropicFake.close();
    await openaiFake.close();
  });

  it('sends an Anthropic upstream the same request (system, images, documents, thinking history, tools) and answers its Message', async () => {
    const usage = { input_tokens: 40, output_tokens: 70, cache_read_input_tokens: 2000, cache_creation_input_tokens: 500 };
    anthropicFake.setNext(
      anthropicJson({ ...anthropicMessage({ text: 'Done', model: CLAUDE, usage }), stop_reason: 'stop_sequence', stop_sequence: 'END' }),
    );
    const blocks = [
      { type: 'text' as const, text: 'Look:' },
      { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG } },
      { type: 'image' as const, source: { type: 'url' as const, url: 'https://example.com/a.jpg' } },
      {
        type: 'document' as const,
        source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: PDF },
        title: 'spec.pdf',
      },
      { type: 'document' as const, source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'plain words' } },
      { type: 'document' as const, source: { type: 'url' as const, url: 'https://example.com/b.pdf' } },
    ];
    const thought = { type: 'thinking' as const, thinking: 'Earlier thought', signature: 'sig-0' };
    const message = await client.messages.create({
      model: `claude/${CLAUDE}`,
      max_tokens: 300,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in English.' },
      ],
      messages: [user(blocks), { role: 'assistant', content: [thought, { type: 'text', text: 'Seen.' }] }, user('go on')],
      stop_sequences: ['END'],
      metadata: { user_id: 'u-1' },
      tools: [weather],
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
    });
    const sent = anthropicFake.requests.at(-1)!;
    expect([sent.path, sent.headers['x-api-key']]).toEqual(['/v1/messages', 'sk-ant']);
    expect(sent.body).toEqual({
      model: CLAUDE,
      max_tokens: 300,
      system: 'Be brief.\nAnswer in English.',
      messages: [
        { role: 'user', content: blocks },
        { role: 'assistant', content: [thought, { type: 'text', text: 'Seen.' }] },
        { role: 'user', content: 'go on' },
      ],
      stop_sequences: ['END'],
      tools: [weather],
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      metadata: { user_id: 'u-1' },
    });
    expect(message).toMatchObject({
      id: 'msg_fake_1',
      model: CLAUDE,
      content: [{ type: 'text', text: 'Done', citations: null }],
      stop_reason: 'stop_sequence',
      stop_sequence: 'END',
      // Cache writes have no place in the chat format's usage: counted as input here, apart in the log.
      usage: { input_tokens: 540, output_tokens: 70, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0 },
    });
    const log = await lastLog();
    expect(log).toMatchObject({ status: 200, provider_name: 'claude', model: CLAUDE, prompt_tokens: 2540, completion_tokens: 70 });
    expect([log.uncached_input_tokens, log.cache_read_tokens, log.cache_write_tokens, log.output_tokens]).toEqual([40, 2000, 500, 70]);
    expect(Number(log.cost_usd)).toBeGreaterThan(0);
  });

  it('maps thinking to extended thinking and streams the thinking back, signature kept for the next turn', async () => {
    anthropicFake.setNext(anthropicStream(thinkingEvents('Let me think.', 'sig-1', 'Forty-two')));
    const stream = client.messages.stream({
      model: `claude/${CLAUDE}`,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [user('the answer?')],
    });
    const thinking: string[] = [];
    stream.on('thinking', (delta) => thinking.push(delta));
    const final = await stream.finalMessage();
    expect(anthropicFake.requests.at(-1)!.body).toMatchObject({
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      stream: true,
    });
    expect(thinking).toEqual(['Let me think.']);
    expect(final).toMatchObject({
      content: [
        { type: 'thinking', thinking: 'Let me think.', signature: 'sig-1' },
        { type: 'text', text: 'Forty-two' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 12, output_tokens: 30 },
    });
    expect(await lastLog()).toMatchObject({ status: 200, stream: true, prompt_tokens: 12, completion_tokens: 30 });

    // A budget between two efforts' gets the smaller (providers/reasoning.ts): never more than asked.
    await client.messages.create({
      model: `claude/${CLAUDE}`,
      max_tokens: 9000,
      thinking: { type: 'enabled', budget_tokens: 5000 },
      messages: [user('the answer?'), { role: 'assistant', content: final.content }, user('why?')],
    });
    const sent = anthropicFake.requests.at(-1)!.body;
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(sent.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Let me think.', signature: 'sig-1' },
        { type: 'text', text: 'Forty-two' },
      ],
    });
  });

  it('streams an Anthropic tool_use back as tool_use events, and sends the tool_result the next turn', async () => {
    anthropicFake.setNext(
      anthropicStream(
        anthropicEvents({ model: CLAUDE, toolUses: [{ id: 'toolu_1', name: 'get_weather', jsonPieces: ['{"city":', '"Oslo"}'] }] }),
      ),
    );
    const asked = await client.messages
      .stream({ model: `claude/${CLAUDE}`, max_tokens: 100, tools: [weather], messages: [user('Oslo?')] })
      .finalMessage();
    expect(asked).toMatchObject({
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
      usage: { input_tokens: 12, output_tokens: 4 },
    });
    await client.messages.create({
      model: `claude/${CLAUDE}`,
      max_tokens: 100,
      tools: [weather],
      messages: [
        user('Oslo?'),
        { role: 'assistant', content: asked.content },
        user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' }]),
      ],
    });
    expect(anthropicFake.requests.at(-1)!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' }] },
    ]);
  });

  it('refuses what the Anthropic upstream cannot take (temperature, API version 2026-10-21) without calling it', async () => {
    const calls = anthropicFake.requests.length;
    const refused = await client.messages
      .create({ model: `claude/${CLAUDE}`, max_tokens: 10, temperature: 0.5, messages: [user('x')] } as never)
      .catch((e) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused.error.error).toEqual({
      type: 'invalid_request_error',
      message: 'temperature: Provider "claude" does not support "temperature" as given',
    });
    expect(anthropicFake.requests.length).toBe(calls);
  });

  it("counts tokens with the Anthropic upstream's own count endpoint", async () => {
    anthropicFake.setNext(anthropicJson({ input_tokens: 77 }));
    expect(await client.messages.countTokens({ model: `claude/${CLAUDE}`, system: 'Be brief.', messages: [user('count me')] })).toEqual({
      input_tokens: 77,
    });
    const sent = anthropicFake.requests.at(-1)!;
    expect([sent.path, sent.body]).toEqual([
      '/v1/messages/count_tokens',
      { model: CLAUDE, system: 'Be brief.', messages: [{ role: 'user', content: 'count me' }] },
    ]);
  });

  it('translates to an OpenAI-format upstream and back: fields, tool call, reasoning as thinking, cached tokens', async () => {
    const completion = openaiCompletion({
      toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      model: 'gpt-4o',
      usage: { prompt_tokens: 100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 60 } },
    });
    Object.assign(completion.choices[0].message, { reasoning_content: 'Weather needs a tool.' });
    openaiFake.setNext(openaiJson(completion));
    const message = await client.messages.create({
      model: 'upstream/gpt-4o',
      max_tokens: 10000,
      system: 'Be brief.',
      messages: [
        user([
          { type: 'text', text: 'Oslo?' },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
        ]),
      ],
      stop_sequences: ['END'],
      metadata: { user_id: 'u-2' },
      temperature: 0.5,
      top_p: 0.9,
      thinking: { type: 'enabled', budget_tokens: 8192 },
      tools: [weather],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    } as never);
    const { stream: _stream, stream_options: _options, ...sent } = openaiFake.requests.at(-1)!.body;
    expect(sent).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Oslo?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
          ],
        },
      ],
      max_tokens: 10000,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      user: 'u-2',
      reasoning_effort: 'medium',
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weather.input_schema } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    expect(message).toMatchObject({
      model: 'gpt-4o',
      content: [
        { type: 'thinking', thinking: 'Weather needs a tool.', signature: '' },
        { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 40, cache_read_input_tokens: 60, output_tokens: 20 },
    });
    expect(await lastLog()).toMatchObject({ status: 200, provider_name: 'upstream', prompt_tokens: 100, completion_tokens: 20 });
    expect(Number((await lastLog()).cost_usd)).toBeGreaterThan(0);
  });

  it('streams from an OpenAI-format upstream (tool result sent as a tool message) and refuses documents it cannot take', async () => {
    openaiFake.setNext(
      openaiStream(openaiChunks({ content: ['Sun', 'ny'], model: 'gpt-4o', usage: { prompt_tokens: 9, completion_tokens: 2 } })),
    );
    const final = await client.messages
      .stream({
        model: 'upstream/gpt-4o',
        max_tokens: 50,
        messages: [
          user('Oslo?'),
          { role: 'assistant', content: [{ type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Oslo' } }] },
          user([{ type: 'tool_result', tool_use_id: 'call_9', content: '21C' }]),
        ],
      })
      .finalMessage();
    expect(final).toMatchObject({
      content: [{ type: 'text', text: 'Sunny' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 9, output_tokens: 2 },
    });
    expect(openaiFake.requests.at(-1)!.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_9', content: '21C' },
    ]);
    const calls = openaiFake.requests.length;
    const doc = { type: 'document' as const, source: { type: 'url' as const, url: 'https://example.com/b.pdf' } };
    const refused = await client.messages.create({ model: 'upstream/gpt-4o', max_tokens: 5, messages: [user([doc])] }).catch((e) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused.error.error.message).toMatch(
      /^messages\.0\.content\.0\.source\.type: 'url' documents cannot be sent to an OpenAI-compatible provider/,
    );
    expect(openaiFake.requests.length).toBe(calls);
  });
});
