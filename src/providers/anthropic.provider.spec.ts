import {
  anthropicError,
  anthropicEvents,
  anthropicJson,
  anthropicMessage,
  anthropicStream,
  FakeUpstream,
  startFakeAnthropicUpstream,
} from '../../test/fakes/fake-anthropic-upstream';
import { AnthropicProvider } from './anthropic.provider';
import { CompletionAssembler } from './completion-assembler';
import type { ChatCompletionChunk, ProviderCredentials, ProviderRequest, ProviderStream } from './provider.types';
import { httpStatusFor, ProviderError } from './provider.types';
import { UpstreamHttp } from './upstream-http';

async function collect(stream: ProviderStream): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const timeTool = { type: 'function' as const, function: { name: 'get_time' } };

describe('AnthropicProvider against a fake Messages API upstream', () => {
  let fake: FakeUpstream;
  let creds: ProviderCredentials;
  const provider = new AnthropicProvider(
    new UpstreamHttp({ timeoutMs: 5000, maxRetries: 2, maxRetryAfterSeconds: 30, allowedHosts: [{ host: '127.0.0.1' }] }),
  );

  beforeEach(async () => {
    fake = await startFakeAnthropicUpstream();
    creds = { type: 'anthropic', baseUrl: fake.url, apiKey: 'sk-ant-test' };
  });
  afterEach(() => fake.close());

  it('translates the request: system, images, tool calls, merged tool results, tools, tool_choice', async () => {
    const req: ProviderRequest = {
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny, 21C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '14:05' }] },
        { role: 'user', content: 'And tomorrow?' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      presence_penalty: 0.5,
      seed: 3,
      response_format: { type: 'json_object' },
      stop: 'STOP',
      user: 'user-7',
      tools: [weatherTool, timeTool],
      tool_choice: 'required',
      metadata: { team: 'support' },
    };
    fake.setNext(anthropicJson(anthropicMessage({ text: 'Demain: pluie.' })));

    const result = await provider.complete(req, creds);

    const expectedBody = {
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      system: 'You are terse.\n\nAnswer in French.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '14:05' },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
      stop_sequences: ['STOP'],
      tools: [
        { name: 'get_weather', description: 'Weather for a city', input_schema: weatherTool.function.parameters },
        { name: 'get_time', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'any' },
      metadata: { user_id: 'user-7' },
    };
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].path).toBe('/v1/messages');
    expect(fake.requests[0].headers['x-api-key']).toBe('sk-ant-test');
    expect(fake.requests[0].headers.authorization).toBeUndefined();
    expect(fake.requests[0].headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(fake.requests[0].body).toEqual(expectedBody);
    expect(result.providerRequest).toEqual(expectedBody);
    expect(result.completion.choices[0].message.content).toBe('Demain: pluie.');
  });

  it('rejects content it cannot translate as bad_request, without calling upstream', async () => {
    const audio: ProviderRequest = {
      model: 'c',
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
    };
    const err = await failure(provider.complete(audio, creds));
    expect([err.kind, httpStatusFor(err)]).toEqual(['bad_request', 400]);
    expect(err.message).toContain('input_audio');
    const badImage = await failure(
      collect(
        provider.stream(
          { model: 'c', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/tiff;base64,AAAA' } }] }] },
          creds,
        ),
      ),
    );
    expect(badImage.message).toContain('image/tiff');
    expect(fake.requests).toHaveLength(0);
  });

  it('translates the response: text and tool_use, stop reason and usage', async () => {
    const upstream = anthropicMessage({
      text: 'Checking.',
      toolUses: [{ id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo', days: 2 } }],
      usage: { input_tokens: 30, output_tokens: 11 },
    });
    fake.setNext(anthropicJson(upstream));
    const result = await provider.complete(
      { model: 'claude-x', messages: [{ role: 'user', content: 'Oslo?' }], tools: [weatherTool] },
      creds,
    );

    expect(result.providerResponse).toEqual(upstream);
    expect(result.completion).toEqual({
      id: 'msg_fake_1',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'claude-fake',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking.',
            refusal: null,
            tool_calls: [{ id: 'toolu_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","days":2}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 11, total_tokens: 41 },
    });
  });

  it('keeps cache reads, cache writes and uncached input apart, plain and streamed', async () => {
    const usage = { input_tokens: 7, cache_read_input_tokens: 300, cache_creation_input_tokens: 50, output_tokens: 9 };
    const kinds = { input: 7, cacheRead: 300, cacheWrite: 50, reasoning: 0, output: 9 };
    fake.setNext(anthropicJson(anthropicMessage({ text: 'ok', usage })), anthropicStream(anthropicEvents({ text: ['o', 'k'], usage })));
    const result = await provider.complete({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] }, creds);
    expect(result.tokens).toEqual(kinds);
    expect(result.completion.usage).toEqual({
      prompt_tokens: 357,
      completion_tokens: 9,
      total_tokens: 366,
      prompt_tokens_details: { cached_tokens: 300 },
    });
    const stream = provider.stream({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] }, creds);
    await collect(stream);
    expect(stream.tokens).toEqual(kinds);
  });

  it('streams text as chat.completion.chunk objects', async () => {
    const stream = provider.stream({ model: 'claude-x', messages: [{ role: 'user', content: 'one two three' }] }, creds);
    const chunks = await collect(stream);

    expect(fake.requests[0].body).toEqual({
      model: 'claude-x',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
    });
    expect(stream.providerRequest).toEqual(fake.requests[0].body);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === 'msg_fake_1')).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.slice(1, -1).map((c) => c.choices[0].delta.content)).toEqual(['one', ' two', ' three']);
    expect(chunks[chunks.length - 1].choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(stream.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
  });

  it('streams tool_use blocks as tool-call deltas (input_json_delta -> arguments)', async () => {
    fake.setNext(
      anthropicStream(
        anthropicEvents({
          text: ['Let me', ' look.'],
          toolUses: [
            { id: 'toolu_a', name: 'get_weather', jsonPieces: ['{"city":', ' "Rome"}'] },
            { id: 'toolu_b', name: 'get_time', jsonPieces: [] },
          ],
          usage: { input_tokens: 40, output_tokens: 25 },
        }),
      ),
    );
    const stream = provider.stream(
      { model: 'claude-x', messages: [{ role: 'user', content: 'Rome?' }], tools: [weatherTool, timeTool] },
      creds,
    );
    const chunks = await collect(stream);
    const assembler = new CompletionAssembler();
    chunks.forEach((c) => assembler.push(c));

    const firstToolDelta = chunks.find((c) => c.choices[0].delta.tool_calls)!.choices[0].delta.tool_calls!;
    expect(firstToolDelta).toEqual([{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '' } }]);
    const completion = assembler.completion(stream.usage);
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: 'Let me look.',
      refusal: null,
      tool_calls: [
        { id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } },
        { id: 'toolu_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ],
    });
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(completion.usage).toEqual({ prompt_tokens: 40, completion_tokens: 25, total_tokens: 65 });
  });

  it('retries a 529 and then fails as upstream with the upstream message', async () => {
    fake.setNext(anthropicError(529, 'overloaded_error', 'Overloaded'), anthropicError(529, 'overloaded_error', 'Overloaded still'));
    const err = await failure(provider.complete({ model: 'c', messages: [{ role: 'user', content: 'a' }] }, creds, { maxRetries: 1 }));
    expect(fake.requests).toHaveLength(2);
    expect([err.kind, err.status, httpStatusFor(err)]).toEqual(['upstream', 529, 502]);
    expect(err.message).toContain('Overloaded still');
  });

  it('maps a 400 invalid_request_error to bad_request with its message, and a 429 to rate_limited', async () => {
    fake.setNext(
      anthropicError(400, 'invalid_request_error', 'messages.0.content: text content blocks must be non-empty'),
      anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', { 'retry-after': '45' }),
    );
    const bad = await failure(provider.complete({ model: 'c', messages: [{ role: 'user', content: 'a' }] }, creds));
    const limited = await failure(provider.complete({ model: 'c', messages: [{ role: 'user', content: 'a' }] }, creds));
    expect([bad.kind, bad.status]).toEqual(['bad_request', 400]);
    expect(bad.message).toContain('text content blocks must be non-empty');
    expect([limited.kind, limited.retryAfterSeconds, httpStatusFor(limited)]).toEqual(['rate_limited', 45, 429]);
    expect(fake.requests).toHaveLength(2);
  });

  it('turns an error event inside the stream into an upstream error', async () => {
    const events = anthropicEvents({ text: ['partial'] }).slice(0, 3);
    fake.setNext(
      anthropicStream([
        ...events,
        { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded mid-stream' } } },
      ]),
    );
    const err = await failure(collect(provider.stream({ model: 'c', messages: [{ role: 'user', content: 'a' }] }, creds)));
    expect(err.kind).toBe('upstream');
    expect(err.message).toContain('Overloaded mid-stream');
  });

  it('times out when the upstream never answers', async () => {
    fake.setNext({ type: 'hang' });
    const err = await failure(
      provider.complete({ model: 'c', messages: [{ role: 'user', content: 'a' }] }, creds, { timeoutMs: 300, maxRetries: 0 }),
    );
    expect([err.kind, httpStatusFor(err)]).toEqual(['timeout', 504]);
  });

  it('aborting the signal mid-stream closes the upstream request', async () => {
    fake.setNext(anthropicStream(anthropicEvents({ text: ['a', ' b'] }).slice(0, 3), { keepOpen: true }));
    const controller = new AbortController();
    const iterator = provider
      .stream({ model: 'c', messages: [{ role: 'user', content: 'a' }] }, creds, { signal: controller.signal })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value?.choices[0].delta.role).toBe('assistant');
    controller.abort();
    const err = await failure(iterator.next());
    expect(err.kind).toBe('aborted');
    await fake.requests[0].closed;
    expect(fake.requests[0].closedEarly).toBe(true);
  });
});
