/**
 * Reassembles streamed chunks into the ChatCompletion they add up to: what a streamed call appends
 * to the thread and records in the request log once the stream has ended.
 */
import type { ChatCompletion, ChatCompletionChunk, CompletionUsage, StopSequenceField } from './provider.types';
import type { ReasoningFields } from './reasoning';

type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
type FinishReason = ChatCompletion.Choice['finish_reason'];

interface ChoiceState {
  content: string | null;
  /** reasoning.ts: the reasoning text and Anthropic's signature of it. */
  reasoning: string;
  signature: string;
  toolCalls: ToolCall[];
  finish: FinishReason | null;
  /** provider.types.ts, StopSequenceField. */
  stopSequence: string | undefined;
}

export class CompletionAssembler {
  private id = '';
  private created = 0;
  private model = '';
  private readonly choices = new Map<number, ChoiceState>();

  push(chunk: ChatCompletionChunk): void {
    this.id ||= chunk.id;
    this.created ||= chunk.created;
    this.model ||= chunk.model;
    for (const choice of chunk.choices ?? []) {
      const state = this.choiceState(choice.index ?? 0);
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') state.content = (state.content ?? '') + delta.content;
      const reasoning = delta as ReasoningFields;
      if (reasoning.reasoning_content) state.reasoning += reasoning.reasoning_content;
      if (reasoning.reasoning_signature) state.signature += reasoning.reasoning_signature;
      for (const part of delta.tool_calls ?? []) {
        const call = (state.toolCalls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (part.id) call.id = part.id;
        // As the official SDK assembles them: the name is set (some compatible servers repeat it
        // in every delta), only the arguments come in pieces.
        if (part.function?.name) call.function.name = part.function.name;
        if (part.function?.arguments) call.function.arguments += part.function.arguments;
      }
      if (choice.finish_reason) state.finish = choice.finish_reason;
      const stop = (choice as StopSequenceField).stop_sequence;
      if (stop) state.stopSequence = stop;
    }
  }

  completion(usage?: CompletionUsage): ChatCompletion {
    const choices = [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, state]) => {
        const toolCalls = state.toolCalls.filter(Boolean);
        return {
          index,
          message: {
            role: 'assistant' as const,
            // '' beside tool calls reads as null, as in a non-streamed answer.
            content: state.content || (toolCalls.length ? null : ''),
            refusal: null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            ...(state.reasoning ? { reasoning_content: state.reasoning } : {}),
            ...(state.signature ? { reasoning_signature: state.signature } : {}),
          },
          logprobs: null,
          finish_reason: state.finish ?? 'stop',
          ...(state.stopSequence ? { stop_sequence: state.stopSequence } : {}),
        };
      });
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices,
      ...(usage ? { usage } : {}),
    };
  }

  private choiceState(index: number): ChoiceState {
    let state = this.choices.get(index);
    if (!state) {
      state = { content: null, reasoning: '', signature: '', toolCalls: [], finish: null, stopSequence: undefined };
      this.choices.set(index, state);
    }
    return state;
  }
}
