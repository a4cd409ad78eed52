import type { ChatCompletion, ChatCompletionChunk, CompletionUsage } from '../providers';

/**
 * Parley's completions in OpenAI's exact shapes (the `openai` package's types): every field the
 * SDK reads, `logprobs: null` where Parley has none.
 */
export function toChatCompletion(completion: ChatCompletion): ChatCompletion {
  return {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map((choice) => ({
      index: choice.index,
      message: {
        role: 'assistant',
        content: choice.message.content ?? null,
        refusal: choice.message.refusal ?? null,
        ...(choice.message.tool_calls?.length ? { tool_calls: choice.message.tool_calls } : {}),
      },
      logprobs: null,
      finish_reason: choice.finish_reason,
    })),
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}

/** A chunk as OpenAI streams it; with `include_usage` every chunk but the last carries `usage: null`. */
export function toChunk(chunk: ChatCompletionChunk, includeUsage: boolean): ChatCompletionChunk {
  return {
    id: chunk.id,
    object: 'chat.completion.chunk',
    created: chunk.created,
    model: chunk.model,
    choices: chunk.choices.map((choice) => ({
      index: choice.index,
      delta: choice.delta,
      logprobs: null,
      finish_reason: choice.finish_reason ?? null,
    })),
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The last chunk of `stream_options.include_usage`: no choices, the call's usage. */
export function usageChunk(completion: ChatCompletion, usage: CompletionUsage): ChatCompletionChunk {
  return {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: [],
    usage,
  };
}
