import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';

import { ProjectPrincipal } from '../auth/principal';
import { ApiException } from '../common/errors';
import { sendJson } from '../common/http/send-json';
import type { WireRequest } from '../common/http/wire-request';
import { InvocationService } from '../invocation/invocation.service';
import type { StreamResult } from '../invocation/invocation.types';
import { abortOnClose, LOG_ID_HEADER, setThreadIdHeaders } from '../invocation/invoke-http';
import { anthropicErrorEventOf } from './anthropic-errors';
import { AnthropicSse } from './anthropic-sse';
import { anthropicMessageOf } from './messages.codec';
import type { CountTokensBody, MessagesBody } from './messages.schema';
import { AnthropicMessagesService } from './messages.service';
import { MessageEvents } from './messages.stream';

/** Anthropic's MessageTokensCount. */
export interface TokensCount {
  input_tokens: number;
}

/**
 * `POST /v1/messages` on the wire: Anthropic's Message, or its event stream. Written as
 * invocation-renderer.ts writes the other surfaces (thread id headers, the call's own headers and
 * log id, then JSON or events), with Anthropic's named events instead of `data:` chunks and
 * `[DONE]`: a failure after the headers ends the stream with one `error` event, never
 * message_stop. Errors before the headers reach AnthropicExceptionFilter.
 */
@Injectable()
export class AnthropicMessagesTransport {
  private readonly logger = new Logger('Invocation');

  constructor(
    private readonly messages: AnthropicMessagesService,
    private readonly invocation: InvocationService,
  ) {}

  async create(caller: ProjectPrincipal, body: MessagesBody, request: WireRequest, res: Response): Promise<void> {
    const input = await this.messages.parse(caller, body, request);
    const prepared = await this.invocation.prepare(caller, input);
    // The SDK reads a message's and an error's `_request_id` from this header.
    if (request.requestId) res.setHeader('request-id', request.requestId);
    if (!prepared.newThread) setThreadIdHeaders(res, prepared.threadId);
    const result = await this.invocation.run(caller, prepared, abortOnClose(res));
    setThreadIdHeaders(res, result.threadId);
    for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
    // A replay made no new log: it carries none.
    if (!result.replayed) res.setHeader(LOG_ID_HEADER, prepared.logId);
    if (result.type === 'completion') {
      sendJson(res, HttpStatus.OK, anthropicMessageOf(result.completion));
      return;
    }
    await this.stream(res, result, request.requestId);
  }

  /**
   * `POST /v1/messages/count_tokens`: the would-be call prepared as `create` prepares it (template,
   * thread history, messages), then counted by the provider's adapter instead of called (as
   * /v1/responses/input_tokens). Nothing is called for a reply, stored or logged.
   */
  async countTokens(caller: ProjectPrincipal, body: CountTokensBody, request: WireRequest): Promise<TokensCount> {
    const prepared = await this.invocation.prepare(caller, await this.messages.parse(caller, body, request));
    const count = await this.invocation.countInputTokens(prepared);
    return { input_tokens: count.input_tokens };
  }

  private async stream(res: Response, result: StreamResult, requestId: string | undefined): Promise<void> {
    const sse = new AnthropicSse(res);
    const events = new MessageEvents();
    sse.open();
    try {
      for await (const chunk of result.chunks) await sse.send(events.chunk(chunk));
      await sse.send(events.close());
      // Stored (log, thread turns) before message_stop is sent.
      const completion = await result.finish();
      await sse.send(events.finish(completion));
    } catch (err) {
      // The reply could not be had or stored (provider failure, thread deleted meanwhile, database down).
      if (!(err instanceof ApiException)) this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      sse.fail(anthropicErrorEventOf(err, requestId));
      return;
    }
    sse.end();
  }
}
