import type { ChatCompletion, ChatCompletionChunk } from '../providers';
import { anthropicMessageOf, messageIdOf } from './messages.codec';
import { chatMessagesOf, effortFor } from './messages.request';
import type { PromptBody } from './messages.schema';
import { MessageEvents } from './messages.stream';

const chunk = (delta: object, finish: ChatCompletionChunk.Choice['finish_reason'] = null): ChatCompletionChunk => ({
  id: 'chatcmpl-abc-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: delta as ChatCompletionChunk.Choice.Delta, finish_reason: finish }],
});

describe('/v1/messages translation', () => {
  it('maps a thinking budget to the largest effort that fits in it', () => {
    const budgets = [1024, 2047, 2048, 8191, 8192, 16383, 16384, 31999, 32000, 100000];
    expect(budgets.map(effortFor)).toEqual(['minimal', 'minimal', 'low', 'low', 'medium', 'medium', 'high', 'high', 'xhigh', 'xhigh']);
  });

  it('keeps the order of a user turn: tool results as tool messages, the blocks between them as user messages', () => {
    const body = {
      model: 'm',
      system: 'S',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'one' },
            { type: 'tool_result', tool_use_id: 't2' },
            { type: 'text', text: 'and then' },
          ],
        },
      ],
    } as PromptBody;
    expect(chatMessagesOf(body, 'anthropic')).toEqual([
      { role: 'system', content: 'S' },
      { role: 'tool', tool_call_id: 't1', content: 'one' },
      { role: 'tool', tool_call_id: 't2', content: '' },
      { role: 'user', content: [{ type: 'text', text: 'and then' }] },
    ]);
  });

  it('refuses a second thinking block in one assistant message, naming it', () => {
    const thought = { type: 'thinking', thinking: 't', signature: 's' };
    const body = { model: 'm', messages: [{ role: 'assistant', content: [thought, thought] }] } as PromptBody;
    expect(() => chatMessagesOf(body, 'anthropic')).toThrow(
      expect.objectContaining({
        body: { type: 'error', error: expect.objectContaining({ message: expect.stringMatching(/^messages\.0\.content\.1: /) }) },
      }),
    );
  });

  it('makes msg_ ids from completion ids, keeping Anthropic ids as they are', () => {
    expect([messageIdOf('msg_01abc'), messageIdOf('chatcmpl-0f1e-22'), messageIdOf('chatcmpl-')]).toEqual([
      'msg_01abc',
      'msg_0f1e22',
      'msg_parley',
    ]);
  });

  it('streams reasoning, text and tool calls as blocks in order, then the stop and usage once finished', () => {
    const events = new MessageEvents();
    const out = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'hm' }),
      chunk({ reasoning_signature: 'sig' }),
      chunk({ content: 'Hi' }),
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'g', arguments: '' } }] }),
      chunk({}, 'tool_calls'),
    ].flatMap((c) => events.chunk(c));
    out.push(...events.close());
    const completion: ChatCompletion = {
      id: 'chatcmpl-abc-1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, logprobs: null, finish_reason: 'tool_calls' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
    out.push(...events.finish(completion));
    const brief = out.map(({ event, data }) => {
      const d = data as { index?: number; delta?: { type?: string; stop_reason?: string }; content_block?: { type: string } };
      return [event, d.index ?? d.content_block?.type ?? d.delta?.stop_reason, d.content_block?.type ?? d.delta?.type]
        .filter((x) => x !== undefined)
        .join(' ');
    });
    expect(brief).toEqual([
      'message_start',
      'ping',
      'content_block_start 0 thinking',
      'content_block_delta 0 thinking_delta',
      'content_block_delta 0 signature_delta',
      'content_block_stop 0',
      'content_block_start 1 text',
      'content_block_delta 1 text_delta',
      'content_block_stop 1',
      'content_block_start 2 tool_use',
      'content_block_delta 2 input_json_delta',
      'content_block_delta 2 input_json_delta',
      'content_block_stop 2',
      'content_block_start 3 tool_use',
      'content_block_stop 3',
      'message_delta tool_use',
      'message_stop',
    ]);
    expect(out.at(-2)!.data).toMatchObject({ usage: { input_tokens: 10, output_tokens: 5 } });
    expect(anthropicMessageOf(completion)).toMatchObject({
      id: 'msg_abc1',
      content: [{ type: 'text', text: 'Hi' }],
      stop_reason: 'tool_use',
    });
  });
});
