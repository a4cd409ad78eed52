import { CompletionAssembler } from './completion-assembler';
import { LocalProvider } from './local.provider';
import type { ChatCompletionChunk, ProviderRequest, ProviderStream } from './provider.types';
import { ProviderError } from './provider.types';

const local = new LocalProvider();
const creds = { type: 'local' as const };
const tools = [
  { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
  { type: 'function' as const, function: { name: 'other' } },
];

async function collect(stream: ProviderStream): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function echo(messages: ProviderRequest['messages'], extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: 'echo', messages, ...extra };
}

describe('LocalProvider (echo, not a language model)', () => {
  it('answers with the last user message, counting usage in words', async () => {
    const req = echo([
      { role: 'system', content: 'Be kind to users.' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'What is  the\nweather?' },
    ]);
    const { completion, providerRequest, providerResponse } = await local.complete(req, creds);

    expect(completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'echo',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'What is  the\nweather?', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 4 + 2 + 2 + 4, completion_tokens: 4, total_tokens: 16 },
    });
    expect(providerRequest).toBe(req);
    expect(providerResponse).toBe(completion);
  });

  it('joins the text parts of array content and ignores images', async () => {
    const { completion } = await local.complete(
      echo([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look at' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
            { type: 'text', text: 'this' },
          ],
        },
      ]),
      creds,
    );
    expect(completion.choices[0].message.content).toBe('look at\nthis');
  });

  it('honours max_tokens by words with finish_reason length', async () => {
    const cut = await local.complete(echo([{ role: 'user', content: 'one two  three four' }], { max_tokens: 3 }), creds);
    expect(cut.completion.choices[0]).toMatchObject({ message: { content: 'one two  three' }, finish_reason: 'length' });
    expect(cut.completion.usage?.completion_tokens).toBe(3);

    const whole = await local.complete(echo([{ role: 'user', content: 'one two' }], { max_tokens: 2 }), creds);
    expect(whole.completion.choices[0]).toMatchObject({ message: { content: 'one two' }, finish_reason: 'stop' });
  });

  it('honours stop (cut before the first stop sequence) and max_completion_tokens before max_tokens', async () => {
    const said = echo([{ role: 'user', content: 'one two STOP three four' }], { stop: ['four', 'STOP'], max_tokens: 1 });
    const stopped = (await local.complete({ ...said, max_tokens: undefined }, creds)).completion.choices[0];
    expect([stopped.message.content, stopped.finish_reason]).toEqual(['one two ', 'stop']);
    // Which sequence ended it (provider.types.ts, StopSequenceField): the earliest found, streamed on the last chunk too.
    expect(stopped).toMatchObject({ stop_sequence: 'STOP' });
    const streamed: ChatCompletionChunk[] = [];
    for await (const chunk of local.stream({ ...said, max_tokens: undefined }, creds)) streamed.push(chunk);
    expect(streamed.at(-1)!.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop', stop_sequence: 'STOP' });
    const limited = (await local.complete({ ...said, max_completion_tokens: 3 }, creds)).completion.choices[0];
    expect([limited.message.content, limited.finish_reason]).toEqual(['one two ', 'stop']);
    const cut = (await local.complete({ ...said, stop: undefined, max_completion_tokens: 3 }, creds)).completion.choices[0];
    expect([cut.message.content, cut.finish_reason]).toEqual(['one two STOP', 'length']);
    expect('stop_sequence' in cut).toBe(false);
  });

  it('gives n identical choices, streamed one after the other, with usage for all of them', async () => {
    const req = echo([{ role: 'user', content: 'same words' }], { n: 3 });
    const { completion } = await local.complete(req, creds);
    expect(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, 'same words', 'stop'],
      [1, 'same words', 'stop'],
      [2, 'same words', 'stop'],
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 2, completion_tokens: 6, total_tokens: 8 });
    const stream = local.stream(req, creds);
    const assembler = new CompletionAssembler();
    for (const chunk of await collect(stream)) assembler.push(chunk);
    const streamed = assembler.completion(stream.usage);
    expect(streamed.choices).toEqual(completion.choices);
    expect(streamed.usage).toEqual(completion.usage);
  });

  it('says it cannot answer in JSON, and takes every other field', () => {
    const req = echo([{ role: 'user', content: 'x' }]);
    expect(local.unsupportedParam({ ...req, response_format: { type: 'json_object' } })).toBe('response_format');
    expect(local.unsupportedParam({ ...req, response_format: { type: 'json_schema', json_schema: { name: 'x' } } })).toBe(
      'response_format',
    );
    expect(
      local.unsupportedParam({
        ...req,
        response_format: { type: 'text' },
        n: 4,
        seed: 1,
        temperature: 2,
        stop: 'x',
        parallel_tool_calls: false,
      }),
    ).toBeUndefined();
  });

  it('rejects other models as bad_request naming its models', async () => {
    const err = await local.complete(echo([{ role: 'user', content: 'x' }], { model: 'gpt-4o' }), creds).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.kind).toBe('bad_request');
    expect(err.message).toContain('"gpt-4o"');
    expect(err.message).toContain('echo');
  });

  it('calls the function tool_choice names, with a deterministic id', async () => {
    const req = echo([{ role: 'user', content: 'find cats' }], { tools, tool_choice: { type: 'function', function: { name: 'other' } } });
    const first = await local.complete(req, creds);
    const again = await local.complete(req, creds);

    const choice = first.completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'other', arguments: '{"input":"find cats"}' },
      },
    ]);
    expect(again.completion.choices[0].message.tool_calls).toEqual(choice.message.tool_calls);
    expect(again.completion.id).not.toBe(first.completion.id);
  });

  it("calls the first tool when tool_choice is 'required', and answers in text otherwise", async () => {
    const required = await local.complete(echo([{ role: 'user', content: 'go' }], { tools, tool_choice: 'required' }), creds);
    expect(required.completion.choices[0].message.tool_calls?.[0]).toMatchObject({
      function: { name: 'lookup', arguments: '{"input":"go"}' },
    });

    const noTools = await local.complete(echo([{ role: 'user', content: 'go' }], { tool_choice: 'required' }), creds);
    const auto = await local.complete(echo([{ role: 'user', content: 'go' }], { tools, tool_choice: 'auto' }), creds);
    expect([noTools.completion.choices[0].message.content, auto.completion.choices[0].message.content]).toEqual(['go', 'go']);
  });

  it("with 'auto' (or no tool_choice), calls the first tool the user's text mentions (its name, or a part of four letters or more)", async () => {
    const weatherTools = [
      { type: 'function' as const, function: { name: 'getStockPrice' } },
      {
        type: 'function' as const,
        function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
      },
    ];
    const ask = (content: string, extra: Record<string, unknown> = {}) =>
      local.complete(echo([{ role: 'user', content }], { tools: weatherTools, ...extra }), creds);
    const called = async (content: string, extra?: Record<string, unknown>) =>
      ((await ask(content, extra)).completion.choices[0].message.tool_calls?.[0] as { function?: { name: string } } | undefined)?.function
        ?.name ?? null;
    expect(await called("What's the weather like in San Francisco?")).toBe('get_weather');
    expect(await called('Weather?', { tool_choice: 'auto' })).toBe('get_weather');
    expect(await called('call get_weather please')).toBe('get_weather');
    expect(await called('the stock price of ACME and the weather')).toBe('getStockPrice');
    // "get" is too short to count, "weathered" is another word, 'none' never calls, a tool result is answered in text.
    expect(await called('get me a coffee')).toBeNull();
    expect(await called('a weathered door')).toBeNull();
    expect(await called('the weather', { tool_choice: 'none' })).toBeNull();
    const afterResult = await local.complete(
      echo(
        [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
        { tools: weatherTools },
      ),
      creds,
    );
    expect(afterResult.completion.choices[0].message.content).toBe('sunny');
    const args = ((await ask('weather in Oslo')).completion.choices[0].message.tool_calls![0] as { function: { arguments: string } })
      .function.arguments;
    expect(JSON.parse(args)).toEqual({ input: 'weather in Oslo' });
  });

  it('answers a tool result with its text, so a tool round trip completes', async () => {
    const first = await local.complete(echo([{ role: 'user', content: 'weather in Oslo' }], { tools, tool_choice: 'required' }), creds);
    const call = first.completion.choices[0].message.tool_calls![0];
    const second = await local.complete(
      echo(
        [
          { role: 'user', content: 'weather in Oslo' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'Snow, -3C' },
        ],
        { tools, tool_choice: 'required' },
      ),
      creds,
    );
    expect(second.completion.choices[0]).toMatchObject({ message: { content: 'Snow, -3C' }, finish_reason: 'stop' });
    expect(second.completion.choices[0].message.tool_calls).toBeUndefined();
  });

  it('streams word by word; the chunks reassemble to the non-streamed answer', async () => {
    const req = echo([{ role: 'user', content: '  Hello there,\n  general   Kenobi ' }]);
    const stream = local.stream(req, creds);
    const chunks = await collect(stream);
    const { completion } = await local.complete(req, creds);

    expect(stream.providerRequest).toBe(req);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.slice(1, -1).map((c) => c.choices[0].delta.content)).toEqual(['  Hello', ' there,', '\n  general', '   Kenobi', ' ']);
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(chunks[chunks.length - 1].choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);

    const assembler = new CompletionAssembler();
    chunks.forEach((c) => assembler.push(c));
    expect(assembler.completion(stream.usage).choices).toEqual(completion.choices);
    expect(stream.usage).toEqual(completion.usage);
  });

  it('streams a max_tokens cut with finish_reason length', async () => {
    const chunks = await collect(local.stream(echo([{ role: 'user', content: 'a b c d' }], { max_tokens: 2 }), creds));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('a b');
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('length');
  });

  it('streams a tool call as deltas: id, type and name first, then argument fragments', async () => {
    const req = echo([{ role: 'user', content: 'find red cats' }], { tools, tool_choice: 'required' });
    const chunks = await collect(local.stream(req, creds));
    const { completion } = await local.complete(req, creds);

    const deltas = chunks.map((c) => c.choices[0].delta.tool_calls?.[0]).filter(Boolean);
    expect(deltas[0]).toEqual({
      index: 0,
      id: completion.choices[0].message.tool_calls![0].id,
      type: 'function',
      function: { name: 'lookup', arguments: '' },
    });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.slice(1).every((d) => d!.id === undefined && d!.function?.name === undefined && d!.index === 0)).toBe(true);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');

    const assembler = new CompletionAssembler();
    chunks.forEach((c) => assembler.push(c));
    expect(assembler.completion().choices).toEqual(completion.choices);
  });

  it('stops streaming once the signal is aborted', async () => {
    const controller = new AbortController();
    const iterator = local.stream(echo([{ role: 'user', content: 'a b c' }]), creds, { signal: controller.signal })[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ kind: 'aborted' });
  });
});
