/** Building blocks the adapters share for streamed completions. */
import type { ChatCompletionChunk, CompletionUsage, ProviderStream } from './provider.types';
import { ProviderError, ProviderType } from './provider.types';

type ChunkDelta = ChatCompletionChunk.Choice.Delta;
type FinishReason = ChatCompletionChunk.Choice['finish_reason'];

/** A ProviderStream whose chunks come from a generator that may record `usage` on the way. */
export class ChunkStream implements ProviderStream {
  usage: CompletionUsage | undefined;
  private started = false;

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

export function makeChunk(head: ChunkHeader, delta: ChunkDelta, finish: FinishReason = null): ChatCompletionChunk {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

export function usageOf(prompt: number, completion: number): CompletionUsage {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/**
 * Links the caller's abort signal to the signal handed to the SDK, and adds an idle timer for the
 * streaming phase: the SDKs' `timeout` only covers the wait for response headers, so an upstream
 * that stalls mid-stream would otherwise hang the call forever.
 * The SDKs end a stream silently when its request is aborted; `stopReason()` says why it stopped.
 */
export class StreamWatch {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  private readonly onCallerAbort = () => this.controller.abort();

  constructor(
    private readonly provider: ProviderType,
    private readonly callerSignal: AbortSignal | undefined,
    private readonly idleMs: number,
  ) {
    if (callerSignal?.aborted) this.controller.abort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Call when headers arrived and on every upstream event. */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.idleMs);
  }

  /** The error to report when Parley (not the upstream) cut the stream; undefined otherwise. */
  stopReason(): ProviderError | undefined {
    if (this.callerSignal?.aborted) {
      return new ProviderError('aborted', `${this.provider} request cancelled by the caller`, {
        provider: this.provider,
      });
    }
    if (this.timedOut) {
      return new ProviderError('timeout', `${this.provider} upstream sent nothing for ${this.idleMs} ms`, {
        provider: this.provider,
      });
    }
    return undefined;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}
