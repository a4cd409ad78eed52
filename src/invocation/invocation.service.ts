import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ProjectPrincipal } from '../auth/principal';
import { ApiException, serviceError } from '../common/errors';
import { CompletionAssembler, httpStatusFor, ProviderCredentials, ProviderError, ProvidersService, ProviderStream } from '../providers';
import { InvocationRecorder, InvokeOutcome } from './invocation-recorder';
import { InvokeInput, InvokePreparer, PreparedInvoke } from './invoke-preparer';
import { completionResponse } from './invoke-request';
import { SseResponse, streamErrorOf } from './sse-response';

export const THREAD_ID_HEADER = 'x-parley-thread-id';

const ERROR_NAMES: Record<number, string> = {
  400: 'Bad Request',
  429: 'Too Many Requests',
  499: 'Client Closed Request',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

/** A provider failure as Parley answers it: `{error, message}` with the mapped status. */
function providerFailure(err: ProviderError): ApiException {
  const status = httpStatusFor(err);
  const headers: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'Retry-After': String(err.retryAfterSeconds) } : {};
  return serviceError(status, ERROR_NAMES[status] ?? 'Provider Error', err.message, headers);
}

/**
 * Endpoints 1 and 2: prepare (resolve, validate, assemble), call the provider with no database
 * transaction open, then record the log and, for assistants, the thread turns.
 */
@Injectable()
export class InvocationService {
  private readonly logger = new Logger('Invocation');

  constructor(
    private readonly preparer: InvokePreparer,
    private readonly providers: ProvidersService,
    private readonly recorder: InvocationRecorder,
  ) {}

  async invoke(caller: ProjectPrincipal, input: InvokeInput, res: Response): Promise<void> {
    const startedAt = new Date();
    const prepared = await this.preparer.prepare(caller, input);
    // Every assistant response carries the thread id, streamed or not, success or failure.
    if (prepared.threadId) res.setHeader(THREAD_ID_HEADER, prepared.threadId);
    if (prepared.body.stream === true) return this.stream(caller, input, prepared, res, startedAt);

    const abort = new AbortController();
    res.on('close', () => !res.writableFinished && abort.abort());
    let outcome: InvokeOutcome;
    try {
      const result = await this.providers.complete(prepared.request, this.credentialsOf(prepared), { signal: abort.signal });
      outcome = { status: 200, error: null, ...result, startedAt, ttftMs: null };
    } catch (err) {
      throw await this.failed(caller, input, prepared, err, startedAt, null);
    }
    await this.recorder.recordSuccess(caller, input, prepared, outcome);
    res.status(HttpStatus.OK).json(completionResponse(outcome.completion!));
  }

  private async stream(caller: ProjectPrincipal, input: InvokeInput, prepared: PreparedInvoke, res: Response, startedAt: Date): Promise<void> {
    const abort = new AbortController();
    res.on('close', () => !res.writableFinished && abort.abort());
    let stream: ProviderStream;
    let chunks: AsyncIterator<unknown>;
    const assembler = new CompletionAssembler();

    // The first chunk comes before our headers, so an upstream failure can still be a plain JSON error.
    let first: IteratorResult<unknown>;
    try {
      stream = this.providers.stream(prepared.request, this.credentialsOf(prepared), { signal: abort.signal });
      chunks = stream[Symbol.asyncIterator]();
      first = await chunks.next();
    } catch (err) {
      throw await this.failed(caller, input, prepared, err, startedAt, null);
    }
    const ttftMs = Date.now() - startedAt.getTime();
    const sse = new SseResponse(res);
    sse.open();
    try {
      for (let next = first; !next.done; next = await chunks.next()) {
        assembler.push(next.value as Parameters<CompletionAssembler['push']>[0]);
        await sse.send(next.value);
      }
    } catch (err) {
      sse.fail(streamErrorOf(await this.failed(caller, input, prepared, err, startedAt, ttftMs)));
      return;
    }
    const completion = assembler.completion(stream.usage);
    try {
      await this.recorder.recordSuccess(caller, input, prepared, {
        status: 200,
        error: null,
        completion,
        providerRequest: stream.providerRequest,
        providerResponse: completion,
        usage: stream.usage,
        startedAt,
        ttftMs,
      });
    } catch (err) {
      // The reply could not be stored (thread deleted meanwhile, database down): no [DONE], one error event.
      sse.fail(streamErrorOf(err));
      // Unexpected errors still reach the exception filter, which logs them.
      if (!(err instanceof ApiException)) throw err;
      return;
    }
    sse.done();
  }

  /** Records the failed call and returns the error to answer with; the thread is left as it was. */
  private async failed(caller: ProjectPrincipal, input: InvokeInput, prepared: PreparedInvoke, err: unknown, startedAt: Date, ttftMs: number | null): Promise<ApiException> {
    // Anything else is a bug in an adapter: answered as a provider failure, logged with its stack.
    if (!(err instanceof ProviderError)) this.logger.error(`provider call failed unexpectedly: ${err instanceof Error ? err.stack : String(err)}`);
    const failure = err instanceof ProviderError ? providerFailure(err) : serviceError(502, 'Bad Gateway', 'The provider call failed');
    const message = (failure.body as { message: string }).message;
    // The upstream's own words may quote the prompt: the caller sees them, a doNotRecord log does not.
    const error = prepared.doNotRecord && err instanceof ProviderError ? err.recordableMessage : message;
    await this.recorder.recordFailure(caller, input, prepared, { status: failure.getStatus(), error, startedAt, ttftMs });
    return failure;
  }

  private credentialsOf(prepared: PreparedInvoke): ProviderCredentials {
    const { type, baseUrl, apiKey } = prepared.resolved.provider;
    return { type, baseUrl, apiKey };
  }
}
