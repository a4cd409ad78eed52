import { Logger } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import { ApiException, isDatabaseUnavailable } from '../common/errors';
import type { Admission } from '../limits/limits.service';
import { ChatCompletion, ChatCompletionChunk, CompletionAssembler, ProviderStream, TokenCounts } from '../providers';
import { type AttemptTrace, NO_ATTEMPT } from '../telemetry/request-trace';
import { PreparedInvocation, StreamResult } from './invocation.types';
import type { Route } from './invocation-attempts';
import { InvocationRecorder } from './invocation-recorder';
import { errorTypeOf } from './invocation-telemetry';
import { storeFailure } from './invoke-errors';
import type { OpenedStream } from './routed-calls';

/**
 * `partial`: a stream that failed after its first chunk records the usage known by then (none for
 * OpenAI-compatible upstreams, which report it at the end), marked partial.
 */
type Failed = (err: unknown, ttftMs: number | null, partial?: { tokens: TokenCounts | undefined }) => Promise<ApiException>;

/**
 * One streamed invocation: pulls the first chunk before anything is answered (so an upstream
 * failure can still be a plain error), then hands the chunks to the transport and, once they
 * ended, stores the assembled reply.
 */
export class InvocationStreamRun {
  private readonly logger = new Logger('Invocation');
  private readonly assembler = new CompletionAssembler();
  private ended = false;
  /** A routed call's route (docs/routing.md): its serving target's stream was opened by RoutedCalls.openStream. */
  private route: Route | undefined;
  /** The serving attempt's trace (docs/observability.md), ended with the stream. */
  private attempt: AttemptTrace = NO_ATTEMPT;
  /** The assembled reply, made once the chunks ended (for the attempt's span, then for the log). */
  private completion: ChatCompletion | undefined;

  constructor(
    private readonly caller: ProjectPrincipal,
    private readonly prepared: PreparedInvocation,
    private readonly startedAt: Date,
    private readonly recorder: Pick<InvocationRecorder, 'recordSuccess'>,
    private readonly admission: Admission,
    private readonly failed: Failed,
    /** The project's share of streaming work (docs/operations.md, "Fairness between projects"): awaited before each chunk when it returns a promise. */
    private readonly pace: () => Promise<void> | undefined = () => undefined,
  ) {}

  /** `open` starts the provider call; anything it throws before the first chunk is the call's failure. */
  async start(open: () => ProviderStream, attempt: AttemptTrace = NO_ATTEMPT): Promise<StreamResult> {
    this.attempt = attempt;
    let stream: ProviderStream;
    let chunks: AsyncIterator<ChatCompletionChunk>;
    let first: IteratorResult<ChatCompletionChunk>;
    try {
      stream = open();
      chunks = stream[Symbol.asyncIterator]();
      first = await chunks.next();
    } catch (err) {
      attempt.failed(errorTypeOf(err));
      throw await this.failed(err, null);
    }
    attempt.firstChunk();
    return this.result(stream, chunks, first);
  }

  /**
   * A routed stream: `open` falls over between targets until one sent its first content event
   * (routed-calls.ts); the role-only chunks it sent before are sent once, before that event.
   */
  async startRouted(route: Route, open: () => Promise<OpenedStream>): Promise<StreamResult> {
    this.route = route;
    let opened: OpenedStream;
    try {
      opened = await open();
    } catch (err) {
      throw await this.failed(err, null);
    }
    this.attempt = opened.attempt;
    return this.result(opened.stream, opened.chunks, opened.first, opened.head);
  }

  private result(
    stream: ProviderStream,
    chunks: AsyncIterator<ChatCompletionChunk>,
    first: IteratorResult<ChatCompletionChunk>,
    head?: ChatCompletionChunk[],
  ): StreamResult {
    const ttftMs = Date.now() - this.startedAt.getTime();
    return {
      type: 'stream',
      threadId: this.prepared.threadId,
      headers: this.admission.headers,
      chunks: this.iterate(stream, chunks, first, ttftMs, head),
      finish: () => this.finish(stream, ttftMs),
    };
  }

  private async *iterate(
    stream: ProviderStream,
    chunks: AsyncIterator<ChatCompletionChunk>,
    first: IteratorResult<ChatCompletionChunk>,
    ttftMs: number,
    head: ChatCompletionChunk[] | undefined,
  ): AsyncGenerator<ChatCompletionChunk> {
    try {
      if (head) {
        for (const chunk of head) {
          this.assembler.push(chunk);
          yield chunk;
        }
      }
      for (let next = first; !next.done; next = await chunks.next()) {
        const wait = this.pace();
        if (wait) await wait;
        this.assembler.push(next.value);
        yield next.value;
      }
      this.ended = true;
      if (this.attempt !== NO_ATTEMPT)
        this.attempt.succeeded({ completion: this.completionOf(stream), tokens: stream.tokens, usage: stream.usage });
    } catch (err) {
      this.attempt.failed(errorTypeOf(err), { tokens: stream.tokens });
      throw await this.failed(err, ttftMs, { tokens: stream.tokens });
    } finally {
      // The transport stopped reading (client gone): the call no longer counts as running.
      if (!this.ended) {
        this.attempt.failed('client_closed', { tokens: stream.tokens });
        this.admission.release();
      }
    }
  }

  private completionOf(stream: ProviderStream): ChatCompletion {
    return (this.completion ??= this.assembler.completion(stream.usage));
  }

  /** Records the log and the thread turns; throws when the reply could not be stored (404 thread gone, 503 database down). */
  private async finish(stream: ProviderStream, ttftMs: number): Promise<ChatCompletion> {
    if (!this.ended) throw new Error('finish() called before the stream ended');
    const completion = this.completionOf(stream);
    try {
      await this.recorder.recordSuccess(this.caller, this.prepared, {
        status: 200,
        error: null,
        completion,
        providerRequest: stream.providerRequest,
        providerResponse: completion,
        usage: stream.usage,
        ...(stream.tokens ? { tokens: stream.tokens } : {}),
        startedAt: this.startedAt,
        ttftMs,
        ...(this.route ? { route: this.route } : {}),
      });
      this.route?.onServed?.();
    } catch (err) {
      if (isDatabaseUnavailable(err)) this.logger.error(`database unavailable while storing a streamed reply: ${(err as Error).message}`);
      throw storeFailure(err);
    } finally {
      this.admission.release(stream.usage?.total_tokens ?? completion.usage?.total_tokens ?? 0);
    }
    return completion;
  }
}
