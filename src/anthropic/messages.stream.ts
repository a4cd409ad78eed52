import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';

import type { ChatCompletion, ChatCompletionChunk, ReasoningFields, StopSequenceField } from '../providers';
import { messageIdOf, stopOf, toolUseBlock, usageCountsOf, usageOf } from './messages.codec';

/** One server-sent event of Anthropic's stream: its name (`event:`) and its data. */
export interface AnthropicEvent {
  event: RawMessageStreamEvent['type'] | 'ping' | 'error';
  data: object;
}

const event = (data: RawMessageStreamEvent): AnthropicEvent => ({ event: data.type, data });

export const PING: AnthropicEvent = { event: 'ping', data: { type: 'ping' } };

type OpenBlock = { kind: 'text' | 'thinking' | 'tool'; index: number };

/**
 * The stream codec of `/v1/messages`: chat-completion chunks (the core's streamed reply, from any
 * provider) as Anthropic's stream events, stateful, one translator per answer
 * (docs/anthropic-compatibility.md, "Streaming"):
 *
 *   message_start, ping, then per content block content_block_start, its deltas (text_delta,
 *   thinking_delta and signature_delta, input_json_delta) and content_block_stop, then, once the
 *   reply is stored, message_delta (stop_reason, stop_sequence, usage) and message_stop.
 *
 * Reasoning (`reasoning_content`, `reasoning_signature`) is a thinking block, text a text block,
 * each tool call a tool_use block; a block is stopped when the next kind starts. Only the first
 * choice is answered (the Messages API has one). A failure is not this codec's: the transport ends
 * the stream with an `error` event instead of message_delta and message_stop.
 */
export class MessageEvents {
  private started = false;
  private open: OpenBlock | null = null;
  private next = 0;
  /** The content block of each chat tool-call index. */
  private readonly toolBlocks = new Map<number, number>();

  /** message_start (and a ping, as Anthropic sends) before the first chunk's events. */
  chunk(chunk: ChatCompletionChunk): AnthropicEvent[] {
    const events = this.start(chunk.id, chunk.model);
    const choice = chunk.choices.find((c) => (c.index ?? 0) === 0);
    if (!choice) return events;
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & ReasoningFields;
    if (delta.reasoning_content) {
      events.push(...this.ensure('thinking'), this.delta({ type: 'thinking_delta', thinking: delta.reasoning_content }));
    }
    if (delta.reasoning_signature) {
      events.push(...this.ensure('thinking'), this.delta({ type: 'signature_delta', signature: delta.reasoning_signature }));
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      events.push(...this.ensure('text'), this.delta({ type: 'text_delta', text: delta.content }));
    }
    for (const call of delta.tool_calls ?? []) {
      let index = this.toolBlocks.get(call.index);
      if (index === undefined) {
        events.push(...this.stop());
        index = this.next++;
        this.toolBlocks.set(call.index, index);
        this.open = { kind: 'tool', index };
        const block = toolUseBlock(call.id ?? '', call.function?.name ?? '', {});
        events.push(event({ type: 'content_block_start', index, content_block: block }));
      }
      if (call.function?.arguments) {
        events.push(
          event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.function.arguments } }),
        );
      }
    }
    return events;
  }

  /** After the last chunk: the open block's content_block_stop. */
  close(): AnthropicEvent[] {
    return this.stop();
  }

  /** Once the reply is stored: message_delta with the stop reason and the whole usage, then message_stop. */
  finish(completion: ChatCompletion): AnthropicEvent[] {
    const events = [...this.start(completion.id, completion.model), ...this.stop()];
    const choice = completion.choices[0] as (ChatCompletion.Choice & StopSequenceField) | undefined;
    events.push(
      event({
        type: 'message_delta',
        delta: { ...stopOf(choice), stop_details: null, container: null },
        usage: usageCountsOf(completion.usage),
      }),
      event({ type: 'message_stop' }),
    );
    return events;
  }

  private start(id: string, model: string): AnthropicEvent[] {
    if (this.started) return [];
    this.started = true;
    const message = {
      id: messageIdOf(id),
      type: 'message' as const,
      role: 'assistant' as const,
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      // Known once the reply is: message_delta carries it.
      usage: usageOf(undefined),
    };
    return [event({ type: 'message_start', message }), PING];
  }

  /** The block of that kind, started (and the one before it stopped) unless it is the open one. */
  private ensure(kind: 'text' | 'thinking'): AnthropicEvent[] {
    if (this.open?.kind === kind) return [];
    const events = this.stop();
    const index = this.next++;
    this.open = { kind, index };
    const block =
      kind === 'text' ? { type: 'text' as const, text: '', citations: null } : { type: 'thinking' as const, thinking: '', signature: '' };
    events.push(event({ type: 'content_block_start', index, content_block: block }));
    return events;
  }

  private delta(delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta']): AnthropicEvent {
    return event({ type: 'content_block_delta', index: this.open!.index, delta });
  }

  private stop(): AnthropicEvent[] {
    if (!this.open) return [];
    const { index } = this.open;
    this.open = null;
    return [event({ type: 'content_block_stop', index })];
  }
}
