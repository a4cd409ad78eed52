import type { ChatCompletionChunk, CompletionUsage, ReasoningFields } from '../providers';
import {
  completedAt,
  OutputFunctionCall,
  OutputItem,
  outputItemId,
  OutputMessage,
  OutputOptions,
  OutputReasoning,
  outputTextOf,
  pendingResponse,
  ResponseBase,
  ResponseObject,
  statusOf,
  usageOf,
} from './response-object';

/**
 * Chat-completion chunks → the Responses API's typed stream events, each with its
 * `sequence_number`, in the order the SDK's ResponseStream accumulates them:
 * response.created, response.in_progress, then per output item output_item.added,
 * (reasoning_summary_part.added, reasoning_summary_text.delta…, .done, reasoning_summary_part.done) or
 * (content_part.added, output_text.delta…, output_text.done, content_part.done) or
 * (function_call_arguments.delta…, function_call_arguments.done), output_item.done, and finally
 * response.completed / response.incomplete. A failure of the upstream while streaming ends the
 * stream with response.failed and an `error` event (see `failureEvents`).
 */
export type ResponseEvent = Record<string, unknown> & { type: string; sequence_number: number };

export class ResponseEventTranslator {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  /** The open message item (text streaming), or the open function call and its chunk index. */
  private openMessage: OutputMessage | null = null;
  private openCall: { item: OutputFunctionCall; toolIndex: number } | null = null;
  private openReasoning: { item: OutputReasoning; signature: string } | null = null;
  private finishReason: string | null = null;
  private usage: CompletionUsage | null = null;

  constructor(
    private readonly base: ResponseBase,
    private readonly options: OutputOptions = { encryptedReasoning: false },
  ) {}

  start(): ResponseEvent[] {
    return [
      this.event('response.created', { response: pendingResponse(this.base) }),
      this.event('response.in_progress', { response: pendingResponse(this.base) }),
    ];
  }

  push(chunk: ChatCompletionChunk): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) return events;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    const reasoning = delta as ReasoningFields;
    if (reasoning.reasoning_content) events.push(...this.reasoning(reasoning.reasoning_content));
    if (reasoning.reasoning_signature && this.openReasoning) this.openReasoning.signature += reasoning.reasoning_signature;
    if (typeof delta.content === 'string' && delta.content.length > 0) events.push(...this.text(delta.content));
    for (const call of delta.tool_calls ?? []) events.push(...this.toolCall(call));
    return events;
  }

  /**
   * Closes what is open and ends the stream; `response` is what a retrieve will answer. `usage`:
   * the assembled completion's, when the chunks carried none (providers report it at the end).
   */
  finish(usage?: CompletionUsage | null): { events: ResponseEvent[]; response: ResponseObject } {
    if (!this.usage && usage) this.usage = usage;
    const events = [...this.closeReasoning(), ...this.closeMessage(), ...this.closeCall()];
    const { status, incomplete_details } = statusOf(this.finishReason);
    const response: ResponseObject = {
      ...pendingResponse(this.base),
      status,
      completed_at: completedAt(status),
      incomplete_details,
      output: this.output,
      output_text: outputTextOf(this.output),
      usage: usageOf(this.usage),
    };
    events.push(this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }));
    return { events, response };
  }

  /**
   * The `error` event carries its payload twice: as `error: {type, code, message, param}` (the Open
   * Responses ErrorStreamingEvent) and flat (the `openai` SDK's ResponseErrorEvent).
   */
  failureEvents(code: string, message: string, type = 'server_error', param: string | null = null): ResponseEvent[] {
    const response = { ...pendingResponse(this.base), status: 'failed', output: this.output, error: { code, message } };
    return [
      this.event('response.failed', { response }),
      this.event('error', { code, message, param, error: { type, code, message, param } }),
    ];
  }

  /** Reasoning text: one reasoning item with one summary part, streamed as summary text deltas. */
  private reasoning(delta: string): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    if (!this.openReasoning) {
      const item: OutputReasoning = { id: outputItemId(this.base.id, 'reasoning', this.output.length), type: 'reasoning', summary: [] };
      this.openReasoning = { item, signature: '' };
      this.output.push(item);
      const at = { item_id: item.id, output_index: this.output.length - 1 };
      events.push(this.event('response.output_item.added', { output_index: at.output_index, item: { ...item, summary: [] } }));
      item.summary.push({ type: 'summary_text', text: '' });
      events.push(
        this.event('response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } }),
      );
    }
    const item = this.openReasoning.item;
    item.summary[0].text += delta;
    events.push(
      this.event('response.reasoning_summary_text.delta', {
        item_id: item.id,
        output_index: this.output.indexOf(item),
        summary_index: 0,
        delta,
      }),
    );
    return events;
  }

  private closeReasoning(): ResponseEvent[] {
    const open = this.openReasoning;
    if (!open) return [];
    this.openReasoning = null;
    const { item } = open;
    if (this.options.encryptedReasoning && open.signature) item.encrypted_content = open.signature;
    const at = { item_id: item.id, output_index: this.output.indexOf(item), summary_index: 0 };
    const part = item.summary[0];
    return [
      this.event('response.reasoning_summary_text.done', { ...at, text: part.text }),
      this.event('response.reasoning_summary_part.done', { ...at, part: { ...part } }),
      this.event('response.output_item.done', { output_index: at.output_index, item: structuredClone(item) }),
    ];
  }

  private text(delta: string): ResponseEvent[] {
    const events = [...this.closeReasoning(), ...this.closeCall()];
    if (!this.openMessage) {
      const item: OutputMessage = {
        id: outputItemId(this.base.id, 'message', this.output.length),
        type: 'message',
        role: 'assistant',
        status: 'in_progress',
        content: [],
      };
      this.openMessage = item;
      this.output.push(item);
      events.push(this.event('response.output_item.added', { output_index: this.output.length - 1, item: { ...item, content: [] } }));
      item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
      events.push(
        this.event('response.content_part.added', {
          ...this.at(item),
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        }),
      );
    }
    this.openMessage.content[0].text += delta;
    events.push(this.event('response.output_text.delta', { ...this.at(this.openMessage), delta, logprobs: [] }));
    return events;
  }

  private toolCall(call: NonNullable<ChatCompletionChunk.Choice['delta']['tool_calls']>[number]): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    // `max_tool_calls`: calls past it are left out of the response, as in responseOf.
    if (this.base.max_tool_calls !== null && call.index >= this.base.max_tool_calls) return events;
    if (!this.openCall || this.openCall.toolIndex !== call.index) {
      events.push(...this.closeReasoning(), ...this.closeMessage(), ...this.closeCall());
      const item: OutputFunctionCall = {
        id: outputItemId(this.base.id, 'function_call', this.output.length),
        type: 'function_call',
        status: 'in_progress',
        call_id: call.id ?? '',
        name: call.function?.name ?? '',
        arguments: '',
      };
      this.openCall = { item, toolIndex: call.index };
      this.output.push(item);
      events.push(this.event('response.output_item.added', { output_index: this.output.length - 1, item: { ...item } }));
    }
    const open = this.openCall.item;
    if (call.id && !open.call_id) open.call_id = call.id;
    if (call.function?.name && !open.name) open.name = call.function.name;
    const piece = call.function?.arguments ?? '';
    if (piece) {
      open.arguments += piece;
      events.push(
        this.event('response.function_call_arguments.delta', { item_id: open.id, output_index: this.output.indexOf(open), delta: piece }),
      );
    }
    return events;
  }

  private closeMessage(): ResponseEvent[] {
    const item = this.openMessage;
    if (!item) return [];
    this.openMessage = null;
    item.status = this.finishReason === 'length' ? 'incomplete' : 'completed';
    const part = item.content[0];
    return [
      this.event('response.output_text.done', { ...this.at(item), text: part.text, logprobs: [] }),
      this.event('response.content_part.done', { ...this.at(item), part: { ...part } }),
      this.event('response.output_item.done', { output_index: this.output.indexOf(item), item: structuredClone(item) }),
    ];
  }

  private closeCall(): ResponseEvent[] {
    const open = this.openCall;
    if (!open) return [];
    this.openCall = null;
    open.item.status = 'completed';
    const outputIndex = this.output.indexOf(open.item);
    return [
      this.event('response.function_call_arguments.done', {
        item_id: open.item.id,
        output_index: outputIndex,
        name: open.item.name,
        arguments: open.item.arguments,
      }),
      this.event('response.output_item.done', { output_index: outputIndex, item: { ...open.item } }),
    ];
  }

  private at(item: OutputMessage) {
    return { item_id: item.id, output_index: this.output.indexOf(item), content_index: 0 };
  }

  private event(type: string, fields: Record<string, unknown>): ResponseEvent {
    return { type, sequence_number: this.sequence++, ...fields };
  }
}
