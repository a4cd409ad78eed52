import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';

import { AnthropicProvider } from './anthropic.provider';
import { AnthropicStreamTranslator } from './anthropic.stream';
import { finishReasonFor, fromAnthropicMessage, toAnthropicBody } from './anthropic.translate';
import type { ProviderRequest } from './provider.types';

const weatherTool = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };

describe('Anthropic translation', () => {
  it('maps every tool_choice, and sends none without tools', () => {
    const base: ProviderRequest = { model: 'c', messages: [{ role: 'user', content: 'hi' }], tools: [weatherTool] };
    expect(toAnthropicBody({ ...base, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(toAnthropicBody({ ...base, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(toAnthropicBody({ ...base, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(toAnthropicBody({ ...base, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).tool_choice).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    const plain = toAnthropicBody({ model: 'c', messages: [{ role: 'user', content: 'hi' }], tool_choice: 'required', max_tokens: 77 });
    expect(plain).toEqual({ model: 'c', max_tokens: 77, messages: [{ role: 'user', content: 'hi' }] });
  });

  it('translates the /v1 fields that have an Anthropic equivalent', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const body = toAnthropicBody({
      model: 'c',
      messages: [
        { role: 'developer', content: 'Be exact.' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 10,
      max_completion_tokens: 55,
      stop: 'END',
      parallel_tool_calls: false,
      tools: [weatherTool],
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
      user: 'u-1',
    });
    expect(body).toEqual({
      model: 'c',
      max_tokens: 55,
      system: 'Be exact.',
      messages: [{ role: 'user', content: 'hi' }],
      stop_sequences: ['END'],
      tools: [{ name: 'get_weather', input_schema: weatherTool.function.parameters }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      output_config: { format: { type: 'json_schema', schema } },
      metadata: { user_id: 'u-1' },
    });
    const base: ProviderRequest = {
      model: 'c',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [weatherTool],
      parallel_tool_calls: false,
    };
    expect(toAnthropicBody({ ...base, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(toAnthropicBody({ ...base, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(toAnthropicBody({ ...base, parallel_tool_calls: true }).tool_choice).toBeUndefined();
  });

  it('names what it cannot honour for the /v1 surface', () => {
    const adapter = new AnthropicProvider();
    const req: ProviderRequest = { model: 'c', messages: [{ role: 'user', content: 'hi' }] };
    const json_schema = { name: 'x', schema: { type: 'object' } };
    const cases: Array<[Partial<ProviderRequest>, string | undefined]> = [
      [{}, undefined],
      [{ n: 1, stop: ['x'], user: 'u', max_completion_tokens: 5, parallel_tool_calls: false }, undefined],
      [{ response_format: { type: 'text' } }, undefined],
      [{ response_format: { type: 'json_schema', json_schema } }, undefined],
      [{ n: 2 }, 'n'],
      [{ temperature: 0.5 }, 'temperature'],
      [{ top_p: 0.5 }, 'top_p'],
      [{ seed: 1 }, 'seed'],
      [{ presence_penalty: 0 }, 'presence_penalty'],
      [{ frequency_penalty: 1 }, 'frequency_penalty'],
      [{ response_format: { type: 'json_object' } }, 'response_format'],
    ];
    expect(cases.map(([extra]) => adapter.unsupportedParam({ ...req, ...extra }))).toEqual(cases.map(([, param]) => param));
  });

  it('drops empty text, and rejects tool-call arguments that are not a JSON object', () => {
    const body = toAnthropicBody({
      model: 'c',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'again' },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
    const badArgs: ProviderRequest = {
      model: 'c',
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '[1]' } }] },
      ],
    };
    expect(() => toAnthropicBody(badArgs)).toThrow(/tool call t1: its arguments are not a JSON object/);
  });

  it('maps stop reasons to finish reasons', () => {
    const reasons = [
      'end_turn',
      'stop_sequence',
      'pause_turn',
      'max_tokens',
      'model_context_window_exceeded',
      'tool_use',
      'refusal',
    ] as const;
    expect(reasons.map(finishReasonFor)).toEqual(['stop', 'stop', 'stop', 'length', 'length', 'tool_calls', 'content_filter']);
  });

  it('keeps the stop sequence that ended a message on its choice, whole and streamed', () => {
    const message = {
      id: 'msg_1',
      model: 'c',
      content: [{ type: 'text', text: 'one two ' }],
      stop_reason: 'stop_sequence',
      stop_sequence: 'STOP',
      usage: { input_tokens: 3, output_tokens: 2 },
    } as unknown as Message;
    expect(fromAnthropicMessage(message).choices[0]).toMatchObject({ finish_reason: 'stop', stop_sequence: 'STOP' });
    expect('stop_sequence' in fromAnthropicMessage({ ...message, stop_reason: 'end_turn' }).choices[0]).toBe(false);
    const translator = new AnthropicStreamTranslator('c');
    const delta = { type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: 'STOP' }, usage: { output_tokens: 2 } };
    const [finish] = translator.translate({ event: delta.type, data: JSON.stringify(delta) });
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop', stop_sequence: 'STOP' });
  });

  it('gives a streamed tool call without input "{}" as arguments', () => {
    const translator = new AnthropicStreamTranslator('c');
    const events = [
      { type: 'message_start', message: { id: 'msg_1', model: 'c', usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'now', input: {} } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } },
    ] as unknown as RawMessageStreamEvent[];
    const deltas = events.flatMap((e) => translator.translate({ event: e.type, data: JSON.stringify(e) })).map((c) => c.choices[0]);
    expect(deltas.map((d) => d.delta.tool_calls?.[0]?.function?.arguments)).toEqual([undefined, '', '{}', undefined]);
    expect(deltas[3].finish_reason).toBe('tool_calls');
    expect([translator.finished, translator.tokens]).toEqual([true, { input: 3, cacheRead: 0, cacheWrite: 0, reasoning: 0, output: 9 }]);
  });
});
