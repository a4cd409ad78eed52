import { HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';

import type { ProjectPrincipal } from '../auth/principal';
import { ApiException } from '../common/errors';
import { sendJson } from '../common/http/send-json';
import type { ChatCompletion, ChatCompletionChunk } from '../providers';
import { InvocationService } from './invocation.service';
import type { PreparedInvocation } from './invocation.types';
import { abortOnClose, LOG_ID_HEADER, setThreadIdHeaders } from './invoke-http';
import { SseResponse } from './sse-response';

/**
 * How one surface writes an invocation's answer (docs/architecture.md, "The request lifecycle"):
 * the JSON of a completed call, one event per chunk, what follows the last chunk, and the object
 * of the error event when a failure comes after the headers. Errors before the headers are the
 * exception filter's, in the surface's documented shape.
 */
export interface InvocationCodec {
  completion(completion: ChatCompletion): unknown;
  chunk(chunk: ChatCompletionChunk): unknown;
  /** Events after the last chunk, once the reply is stored (OpenAI's usage chunk). */
  end(completion: ChatCompletion): unknown[];
  /** The `error` of the one `{error}` event that ends a failed stream. */
  error(err: unknown): unknown;
}

const logger = new Logger('Invocation');

/**
 * Runs a prepared invocation and writes its answer, the same way for every surface: the thread id
 * headers (a continued thread at once, a new one once it exists), the call's own headers and log
 * id, then JSON or a stream that ends with `[DONE]`, or with one error event (never `[DONE]`)
 * when the call or the storing of its reply failed after the headers went out.
 */
export async function renderInvocation(
  res: Response,
  invocation: InvocationService,
  caller: ProjectPrincipal,
  prepared: PreparedInvocation,
  codec: InvocationCodec,
): Promise<void> {
  if (!prepared.newThread) setThreadIdHeaders(res, prepared.threadId);
  const result = await invocation.run(caller, prepared, abortOnClose(res));
  setThreadIdHeaders(res, result.threadId);
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  // A replay made no new log: it carries none.
  if (!result.replayed) res.setHeader(LOG_ID_HEADER, prepared.logId);
  if (result.type === 'completion') {
    // Not express's res.json: its ETag hash over every answer cost CPU on the hot path (docs/performance.md).
    sendJson(res, HttpStatus.OK, codec.completion(result.completion));
    return;
  }
  const sse = new SseResponse(res);
  sse.open();
  try {
    for await (const chunk of result.chunks) await sse.send(codec.chunk(chunk));
    const completion = await result.finish();
    for (const event of codec.end(completion)) await sse.send(event);
  } catch (err) {
    // The reply could not be had or stored (provider failure, thread deleted meanwhile, database down).
    if (!(err instanceof ApiException)) logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    sse.fail(codec.error(err) as Record<string, unknown>);
    return;
  }
  sse.done();
}
