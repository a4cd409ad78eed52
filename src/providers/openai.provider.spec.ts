import {
  FakeUpstream,
  openaiChunks,
  openaiCompletion,
  openaiError,
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from '../../test/fakes/fake-openai-upstream';
import { CompletionAssembler } from './completion-assembler';
import { OpenAIProvider } from './openai.provider';
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
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

describe('OpenAIProvider against a fake OpenAI-compatible upstream', () => {
  let fake: FakeUpstream;
  let creds: ProviderCredentials;
  const provider = new OpenAIProvider(
    new UpstreamHttp({ timeoutMs: 5000, maxRetries: 2, maxRetryAfterSeconds: 30, allowedHosts: [{ host: '127.0.0.1' }] }),
  );

  beforeEach(async () => {
    fake = await startFakeOpenAIUpstream();
    creds = { type: 'openai', baseUrl: fake.url, apiKey: 'sk-test' };
  });
  afterEach(() => fake.close());

  it('sends the request as given (every override, tools, response_format) and normalises the answer', async () => {
    const req: ProviderRequest = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      ],
      max_tokens: 50,
      temperature: 0.3,
      top_p: 0.9,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      seed: 42,
      stop: ['END'],
      user: 'user-7',
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: { type: 'json_object' },
      metadata: { team: 'support' },
    };
    const upstream = openaiCompletion({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] });
    fake.setNext(openaiJson(upstream));

    const result = await provider.complete(req, creds, {});

    const { metadata: _notForwarded, ...expectedBody } = req;
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].path).toBe('/v1/chat/completions');
    expect(fake.requests[0].headers.authorization).toBe('Bearer sk-test');
    expect(fake.requests[0].body).toEqual(expectedBody);
    expect(result.providerRequest).toEqual(expectedBody);
    expect(result.providerResponse).toEqual(upstream);
    expect(result.completion).toEqual({
      id: 'chatcmpl-fake-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-fake',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    });
  });

  it('passes the /v1 fields through as given', async () => {
    const req: ProviderRequest = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'developer', content: 'Be exact.' },
        { role: 'user', content: 'hi' },
      ],
      n: 2,
      max_completion_tokens: 40,
      parallel_tool_calls: false,
      tools: [weatherTool],
      stop: 'END',
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema: { type: 'object' }, strict: true } },
    };
    fake.setNext(openaiJson(openaiCompletion({ content: '{}' })));
    const result = await provider.complete(req, creds);
    expect(fake.requests[0].body).toEqual(req);
    expect(result.providerRequest).toEqual(req);
    expect(provider.unsupportedParam()).toBeUndefined();
  });

  it('sends no Authorization header when the credentials have no key (keyless local servers)', async () => {
    const result = await provider.complete(
      { model: 'llama3', messages: [{ role: 'user', content: 'hi there' }] },
      { type: 'openai', baseUrl: fake.url },
    );
    expect(fake.requests[0].headers.authorization).toBeUndefined();
    expect(result.completion.choices[0].message.content).toBe('hi there');
  });

  it('splits usage into uncached, cached, reasoning and output tokens, plain and streamed', async () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 40,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 25 },
    };
    const kinds = { input: 40, cacheRead: 60, cacheWrite: 0, reasoning: 25, output: 15 };
    const shown = {
      prompt_tokens: 100,
      completion_tokens: 40,
      total_tokens: 140,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 25 },
    };
    fake.setNext(openaiJson(openaiCompletion({ content: 'ok', usage })), openaiStream(openaiChunks({ content: ['o', 'k'], usage })));
    const result = await provider.complete({ model: 'o3', messages: [{ role: 'user', content: 'hi' }] }, creds);
    expect([result.tokens, result.completion.usage]).toEqual([kinds, shown]);
    const stream = provider.stream({ model: 'o3', messages: [{ role: 'user', content: 'hi' }] }, creds);
    await collect(stream);
    expect([stream.tokens, stream.usage]).toEqual([kinds, shown]);
  });

  it('streams text chunks, asks for usage and keeps it off the yielded chunks', async () => {
    const stream = provider.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three' }], seed: 7 }, creds);
    const chunks = await collect(stream);

    expect(fake.requests[0].body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'one two three' }],
      seed: 7,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(stream.providerRequest).toEqual(fake.requests[0].body);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.choices.length === 1 && !('usage' in c))).toBe(true);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('one two three');
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
    expect(stream.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
  });

  it('passes tool-call deltas through so they reassemble', async () => {
    fake.setNext(
      openaiStream(
        openaiChunks({
          toolCalls: [
            { id: 'call_a', name: 'get_weather', argumentPieces: ['{"ci', 'ty":"Pa', 'ris"}'] },
            { id: 'call_b', name: 'get_time', argumentPieces: ['{}'] },
          ],
        }),
      ),
    );
    const stream = provider.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] }, creds);
    const assembler = new CompletionAssembler();
    for await (const chunk of stream) assembler.push(chunk);

    expect(fake.requests[0].body.tools).toEqual([weatherTool]);
    const completion = assembler.completion(stream.usage);
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(completion.choices[0].message.content).toBeNull();
    expect(completion.choices[0].message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
  });

  it('retries a 500 and then fails as upstream, with the status and the upstream message', async () => {
    fake.setNext(openaiError(500, 'model exploded'), openaiError(500, 'model exploded again'));
    const err = await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { maxRetries: 1 }));

    expect(fake.requests).toHaveLength(2);
    // The same request again, after the first backoff (0.5 s less up to 25 % jitter).
    expect(fake.requests[1].rawBody).toBe(fake.requests[0].rawBody);
    expect(fake.requests[1].receivedAt - fake.requests[0].receivedAt).toBeGreaterThanOrEqual(370);
    expect(err.kind).toBe('upstream');
    expect(err.status).toBe(500);
    expect(err.message).toContain('model exploded again');
    expect(httpStatusFor(err)).toBe(502);
  });

  it('waits out Retry-After: 1 on a 429, then succeeds', async () => {
    fake.setNext(openaiError(429, 'slow down', { 'retry-after': '1' }));
    const result = await provider.complete({ model: 'm', messages: [{ role: 'user', content: 'after the wait' }] }, creds);

    expect(fake.requests).toHaveLength(2);
    const waited = fake.requests[1].receivedAt - fake.requests[0].receivedAt;
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(2500);
    expect(result.completion.choices[0].message.content).toBe('after the wait');
  });

  it('fails at once as rate_limited when Retry-After is longer than the cap', async () => {
    fake.setNext(openaiError(429, 'quota exhausted', { 'retry-after': '120' }));
    const err = await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds));

    expect(fake.requests).toHaveLength(1);
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterSeconds).toBe(120);
    expect(err.message).toContain('quota exhausted');
    expect(httpStatusFor(err)).toBe(429);
  });

  it('maps a 400 to bad_request without retrying', async () => {
    fake.setNext(openaiError(400, "Unrecognized request argument supplied: 'seed'"));
    const err = await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], seed: 1 }, creds));
    expect(fake.requests).toHaveLength(1);
    expect([err.kind, err.status, httpStatusFor(err)]).toEqual(['bad_request', 400, 400]);
    expect(err.message).toContain("Unrecognized request argument supplied: 'seed'");
  });

  it('times out when the upstream never answers', async () => {
    fake.setNext({ type: 'hang' });
    const started = Date.now();
    const err = await failure(
      provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { timeoutMs: 300, maxRetries: 0 }),
    );
    expect(err.kind).toBe('timeout');
    expect(httpStatusFor(err)).toBe(504);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports an unreachable upstream as a connection error', async () => {
    const closed = await startFakeOpenAIUpstream();
    await closed.close();
    const err = await failure(
      provider.complete(
        { model: 'm', messages: [{ role: 'user', content: 'x' }] },
        { type: 'openai', baseUrl: closed.url, apiKey: 'k' },
        { maxRetries: 0 },
      ),
    );
    expect(err.kind).toBe('connection');
    expect(httpStatusFor(err)).toBe(502);
  });

  it('reuses kept-alive connections for consecutive calls', async () => {
    for (let i = 0; i < 6; i += 1) await provider.complete({ model: 'm', messages: [{ role: 'user', content: `call ${i}` }] }, creds);
    expect(fake.requests).toHaveLength(6);
    // undici hands a connection back to its pool a tick after the body was read, so back-to-back
    // calls may alternate between two sockets; without keep-alive there would be six.
    expect(new Set(fake.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
    expect(fake.requests.every((r) => r.headers.connection === 'keep-alive')).toBe(true);
  });

  it('aborting the signal mid-stream closes the upstream request', async () => {
    fake.setNext(openaiStream(openaiChunks({ content: ['a', ' b'] }).slice(0, 2), { keepOpen: true }));
    const controller = new AbortController();
    const iterator = provider
      .stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { signal: controller.signal })
      [Symbol.asyncIterator]();

    const first = await iterator.next();
    expect(first.value?.choices[0].delta.role).toBe('assistant');
    controller.abort();
    const err = await failure(iterator.next());

    expect(err.kind).toBe('aborted');
    await fake.requests[0].closed;
    expect(fake.requests[0].closedEarly).toBe(true);
  });

  it('leaving the loop early (break) also closes the upstream request', async () => {
    fake.setNext(openaiStream(openaiChunks({ content: ['a', ' b'] }).slice(0, 2), { keepOpen: true }));
    for await (const chunk of provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds)) {
      expect(chunk.choices[0].delta.role).toBe('assistant');
      break;
    }
    await fake.requests[0].closed;
    expect(fake.requests[0].closedEarly).toBe(true);
  });

  it('does not retry once stream bytes were received, even with retries left', async () => {
    fake.setNext(openaiStream(openaiChunks({ content: ['partial'] }).slice(0, 2), { dropConnection: true }));
    const stream = provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { maxRetries: 2 });
    const received: ChatCompletionChunk[] = [];
    const err = await failure(
      (async () => {
        for await (const c of stream) received.push(c);
      })(),
    );

    expect(received.map((c) => c.choices[0].delta.content)).toEqual(['', 'partial']);
    expect(['connection', 'upstream']).toContain(err.kind);
    await new Promise((resolve) => setTimeout(resolve, 800)); // longer than the first backoff
    expect(fake.requests).toHaveLength(1);
  });

  it('fails the first next() when the stream cannot start', async () => {
    fake.setNext(openaiError(503, 'overloaded'));
    const iterator = provider
      .stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { maxRetries: 0 })
      [Symbol.asyncIterator]();
    const err = await failure(iterator.next());
    expect([err.kind, err.status]).toEqual(['upstream', 503]);
    expect(err.message).toContain('overloaded');
  });

  it('times out a stream that goes quiet', async () => {
    fake.setNext(openaiStream(openaiChunks({ content: ['a'] }).slice(0, 1), { keepOpen: true }));
    const stream = provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { timeoutMs: 300 });
    const err = await failure(collect(stream));
    expect(err.kind).toBe('timeout');
    await fake.requests[0].closed;
    expect(fake.requests[0].closedEarly).toBe(true);
  });

  it('treats a stream that ends without a finish_reason as an upstream failure', async () => {
    fake.setNext(openaiStream(openaiChunks({ content: ['cut'] }).slice(0, 2)));
    const err = await failure(collect(provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds)));
    expect(err.kind).toBe('upstream');
    expect(err.message).toContain('finish_reason');
  });
});
