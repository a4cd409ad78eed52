import { ResponseStream } from 'openai/lib/responses/ResponseStream';

import { expectStreamingEvents } from '../../test/support/open-responses-schema';
import type { ChatCompletionChunk } from '../providers';
import { responseBaseOf } from './response-base';
import { ResponseEvent, ResponseEventTranslator } from './response-events';
import { ResponseBase } from './response-object';

const base: ResponseBase = responseBaseOf(
  {},
  { uuid: '0192f0c1-a2b3-7c4d-8e9f-00112233aabb', model: 'local/echo', conversationId: null, parameters: {}, createdAt: 1_700_000_000 },
);

const chunk = (
  delta: ChatCompletionChunk.Choice['delta'],
  finish: ChatCompletionChunk.Choice['finish_reason'] = null,
  usage?: ChatCompletionChunk['usage'],
): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'echo',
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  ...(usage ? { usage } : {}),
});

function translate(chunks: ChatCompletionChunk[]) {
  const translator = new ResponseEventTranslator(base);
  const events: ResponseEvent[] = [...translator.start()];
  for (const c of chunks) events.push(...translator.push(c));
  const end = translator.finish();
  return { events: [...events, ...end.events], response: end.response };
}

/** The SDK's own stream helper reads the events as if they came over the wire. */
async function throughSdk(events: ResponseEvent[]) {
  const body = new ReadableStream({
    start(controller) {
      for (const e of events) controller.enqueue(new TextEncoder().encode(JSON.stringify(e) + '\n'));
      controller.close();
    },
  });
  const stream = ResponseStream.fromReadableStream(body);
  const seen: string[] = [];
  stream.on('event', (e) => seen.push(e.type));
  return { final: await stream.finalResponse(), seen };
}

describe('Responses stream events from chat-completion chunks', () => {
  it('text: the SDK assembles the final response, output_text included; sequence numbers count up from 0', async () => {
    const { events, response } = translate([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
      { ...chunk({}), choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const { final } = await throughSdk(events);
    expect(final.output_text).toBe('Hello');
    expect(final.status).toBe('completed');
    expect(final.usage).toEqual({
      input_tokens: 3,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 5,
    });
    expect(final.output).toMatchObject(response.output); // the SDK adds its own `parsed` field
    expect(final.output[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello' }],
    });
  });

  it('tool calls: one function_call item per call, arguments streamed and done', async () => {
    const { events } = translate([
      chunk({ role: 'assistant', content: 'Checking.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"ci' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const { final, seen } = await throughSdk(events);
    expect(seen.filter((t) => t === 'response.function_call_arguments.done')).toHaveLength(2);
    expect(final.output.map((o) => o.type)).toEqual(['message', 'function_call', 'function_call']);
    expect(final.output[1]).toMatchObject({
      type: 'function_call',
      call_id: 'call_a',
      name: 'weather',
      arguments: '{"city":"Oslo"}',
      status: 'completed',
    });
    expect(final.output[2]).toMatchObject({ call_id: 'call_b', name: 'time', arguments: '{}' });
    expect(final.output_text).toBe('Checking.');
  });

  it('length: the response is incomplete with reason max_output_tokens', async () => {
    const { events, response } = translate([chunk({ content: 'cut' }), chunk({}, 'length')]);
    expect(events[events.length - 1].type).toBe('response.incomplete');
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const { final } = await throughSdk(events);
    expect(final.status).toBe('incomplete');
  });

  it('every event, the failure ones included, is as the Open Responses specification requires', () => {
    const translator = new ResponseEventTranslator(base);
    const events = [
      ...translator.start(),
      ...translator.push(chunk({ content: 'par' })),
      ...translator.push(chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] })),
    ];
    events.push(...translator.failureEvents('upstream_error', 'Upstream failed', 'server_error', null));
    expectStreamingEvents(events);
    const finished = new ResponseEventTranslator(base);
    const done = [
      ...finished.start(),
      ...finished.push(chunk({ content: 'ok' })),
      ...finished.finish({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }).events,
    ];
    expectStreamingEvents(done);
    expect(() => expectStreamingEvents([{ ...done[0], response: { ...(done[0].response as object), completed_at: undefined } }])).toThrow(
      /completed_at/,
    );
  });
});
