/** Building blocks the adapters share for streamed completions. */
import type { ChatCompletionChunk, CompletionUsage, ProviderStream } from './provider.types';
import { completionUsageOf, TokenCounts } from './token-usage';

type ChunkDelta = ChatCompletionChunk.Choice.Delta;
type FinishReason = ChatCompletionChunk.Choice['finish_reason'];

/** A ProviderStream whose chunks come from a generator that may record `usage` on the way. */
export class ChunkStream implements ProviderStream {
  tokens: TokenCounts | undefined;
  private started = false;

  get usage(): CompletionUsage | undefined {
    return this.tokens && completionUsageOf(this.tokens);
  }

  constructor(
    readonly providerRequest: object,
    private readonly produce: (sink: ChunkStream) => AsyncGenerator<ChatCompletionChunk>,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<ChatCompletionChunk> {
    if (this.started) throw new Error('A provider stream can be iterated only once');
    this.started = true;
    return this.produce(this);
  }
}

/** Identity of one streamed completion; `chunk()` stamps it on every chunk. */
export interface ChunkHeader {
  id: string;
  created: number;
  model: string;
}

export function makeChunk(head: ChunkHeader, delta: ChunkDelta, finish: FinishReason = null, index = 0): ChatCompletionChunk {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index, delta, finish_reason: finish }],
  };
}

/** The body of a stream whose first next() rejects with `err` (a request that cannot be translated fails like an upstream refusal). */
// eslint-disable-next-line require-yield -- a stream whose first next() rejects
export async function* rejectWith(err: unknown): AsyncGenerator<ChatCompletionChunk> {
  throw err;
}
