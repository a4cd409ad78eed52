/** Anthropic Messages API stream events -> chat.completion.chunk objects. */
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { EventSourceMessage } from 'eventsource-parser';

import { finishReasonFor } from './anthropic.translate';
import type { ChatCompletionChunk, StopSequenceField } from './provider.types';
import { ChunkHeader, makeChunk } from './provider-stream';
import type { EventTranslator } from './sse-stream';
import { TokenCounts, tokensFromAnthropic } from './token-usage';
import { streamErrorEvent } from './upstream-errors';

/** The events that carry the message, by SSE event name (others, `ping` included, are skipped). */
const MESSAGE_EVENTS = new Set([
  'message_start',
  'message_delta',
  'message_stop',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
]);

/** Turns Messages API stream events into chat.completion.chunk objects, one event at a time. */
export class AnthropicStreamTranslator implements EventTranslator {
  readonly endMarker = 'a stop_reason';
  private head: ChunkHeader;
  private readonly toolIndexByBlock = new Map<number, number>();
  private readonly toolsWithArguments = new Set<number>();
  /** message_start reports the prompt's tokens; message_delta the output so far (and may restate the rest). */
  private reported: Parameters<typeof tokensFromAnthropic>[0] = {};
  finished = false;

  constructor(model: string) {
    this.head = { id: '', created: Math.floor(Date.now() / 1000), model };
  }

  get tokens(): TokenCounts {
    return tokensFromAnthropic(this.reported);
  }

  translate(message: EventSourceMessage): ChatCompletionChunk[] {
    if (message.event === 'error') {
      let payload: unknown = message.data;
      try {
        payload = JSON.parse(message.data);
      } catch {
        // an error event whose data is plain text
      }
      throw streamErrorEvent('anthropic', payload);
    }
    if (!message.event || !MESSAGE_EVENTS.has(message.event)) return [];
    return this.translateEvent(JSON.parse(message.data) as RawMessageStreamEvent);
  }

  private translateEvent(event: RawMessageStreamEvent): ChatCompletionChunk[] {
    switch (event.type) {
      case 'message_start':
        this.head = { ...this.head, id: event.message.id, model: event.message.model };
        this.reported = { ...event.message.usage };
        return [makeChunk(this.head, { role: 'assistant', content: '' })];
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') return block.text ? [makeChunk(this.head, { content: block.text })] : [];
        if (block.type !== 'tool_use') return [];
        const index = this.toolIndexByBlock.size;
        this.toolIndexByBlock.set(event.index, index);
        return [
          makeChunk(this.head, { tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] }),
        ];
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta') return [makeChunk(this.head, { content: delta.text })];
        // Reasoning as Parley's chat-completion fields (reasoning.ts).
        if (delta.type === 'thinking_delta')
          return delta.thinking ? [makeChunk(this.head, { reasoning_content: delta.thinking } as ChatCompletionChunk.Choice.Delta)] : [];
        if (delta.type === 'signature_delta')
          return [makeChunk(this.head, { reasoning_signature: delta.signature } as ChatCompletionChunk.Choice.Delta)];
        const index = this.toolIndexByBlock.get(event.index);
        if (delta.type !== 'input_json_delta' || index === undefined || !delta.partial_json) return [];
        this.toolsWithArguments.add(index);
        return [makeChunk(this.head, { tool_calls: [{ index, function: { arguments: delta.partial_json } }] })];
      }
      case 'content_block_stop': {
        // A tool called with no input streams no JSON; say "{}" as the non-streamed answer does.
        const index = this.toolIndexByBlock.get(event.index);
        if (index === undefined || this.toolsWithArguments.has(index)) return [];
        return [makeChunk(this.head, { tool_calls: [{ index, function: { arguments: '{}' } }] })];
      }
      case 'message_delta':
        for (const [field, value] of Object.entries(event.usage)) {
          if (typeof value === 'number') (this.reported as Record<string, number>)[field] = value;
        }
        if (!event.delta.stop_reason) return [];
        this.finished = true;
        return [withStopSequence(makeChunk(this.head, {}, finishReasonFor(event.delta.stop_reason)), event.delta)];
      default: // message_stop, and event types added later
        return [];
    }
  }
}

/** The stop sequence that ended the message, on the finishing chunk's choice (provider.types.ts, StopSequenceField). */
function withStopSequence(
  chunk: ChatCompletionChunk,
  delta: { stop_reason: string | null; stop_sequence: string | null },
): ChatCompletionChunk {
  if (delta.stop_reason === 'stop_sequence' && delta.stop_sequence)
    (chunk.choices[0] as StopSequenceField).stop_sequence = delta.stop_sequence;
  return chunk;
}
