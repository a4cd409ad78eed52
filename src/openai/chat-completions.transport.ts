import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ProjectPrincipal } from '../auth/principal';
import { ApiException, asOpenAIError, openaiError } from '../common/errors';
import { InvocationService } from '../invocation/invocation.service';
import type { StreamResult } from '../invocation/invocation.types';
import { abortOnClose, LOG_ID_HEADER, setThreadIdHeaders } from '../invocation/invoke-http';
import { SseResponse } from '../invocation/sse-response';
import { toChatCompletion, toChunk, usageChunk } from './chat-completions.mapper';
import { ChatCompletionsService } from './chat-completions.service';
import type { WireRequest } from '../common/http/wire-request';
import { sendJson } from '../common/http/send-json';

/** The inner `{message, type, param, code}` of OpenAI's error body, for an error event after the headers. */
function streamError(err: unknown): Record<string, unknown> {
  const shaped = err instanceof ApiException ? asOpenAIError(err) : openaiError(500, 'Internal server error');
  return (shaped.body as { error: Record<string, unknown> }).error;
}

/**
 * `POST /v1/chat/completions` on the wire: OpenAI's completion, or its SSE stream
 * (`chat.completion.chunk` events, a usage chunk with `stream_options.include_usage`, `[DONE]`).
 * Errors before the headers reach the exception filter, which answers in OpenAI's shape.
 */
@Injectable()
export class ChatCompletionsTransport {
  private readonly logger = new Logger('ChatCompletions');

  constructor(
    private readonly chatCompletions: ChatCompletionsService,
    private readonly invocation: InvocationService,
  ) {}

  async create(caller: ProjectPrincipal, request: WireRequest, res: Response): Promise<void> {
    const { input, includeUsage } = await this.chatCompletions.parse(caller, request);
    const prepared = await this.invocation.prepare(caller, input);
    if (!prepared.newThread) setThreadIdHeaders(res, prepared.threadId);
    const result = await this.invocation.run(caller, prepared, abortOnClose(res));
    setThreadIdHeaders(res, result.threadId);
    for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
    // A replay made no new log: it carries none.
    if (!result.replayed) res.setHeader(LOG_ID_HEADER, prepared.logId);
    if (result.type === 'stream') return this.stream(result, includeUsage, res);
    sendJson(res, HttpStatus.OK, toChatCompletion(result.completion));
  }

  private async stream(result: StreamResult, includeUsage: boolean, res: Response): Promise<void> {
    const sse = new SseResponse(res);
    sse.open();
    try {
      for await (const chunk of result.chunks) await sse.send(toChunk(chunk, includeUsage));
      const completion = await result.finish();
      if (includeUsage && completion.usage) await sse.send(usageChunk(completion, completion.usage));
    } catch (err) {
      if (!(err instanceof ApiException)) this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      sse.fail(streamError(err));
      return;
    }
    sse.done();
  }
}
