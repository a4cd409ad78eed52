import { HttpStatus, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { ProjectPrincipal } from '../auth/principal';
import { ApiException } from '../common/errors';
import { InvocationService } from './invocation.service';
import { StreamResult } from './invocation.types';
import { completionResponse } from './invoke-request';
import { abortOnClose, LOG_ID_HEADER, setThreadIdHeaders } from './invoke-http';
import { SpecInvokeParser, SpecInvokeRequest } from './spec-invoke.parser';
import { SseResponse, streamErrorOf } from './sse-response';
import { sendJson } from '../common/http/send-json';

/**
 * Endpoints 1 and 2 on the wire: the spec's body in, the spec's completion or SSE stream out.
 * Assistants announce their thread in `x-parley-thread-id` (and `x-langtail-thread-id`) on every
 * answer, except a failed first call: its thread was never created.
 */
@Injectable()
export class SpecInvokeTransport {
  constructor(
    private readonly parser: SpecInvokeParser,
    private readonly invocation: InvocationService,
  ) {}

  async invoke(caller: ProjectPrincipal, request: SpecInvokeRequest, res: Response): Promise<void> {
    const prepared = await this.invocation.prepare(caller, await this.parser.parse(caller, request));
    // A continued thread exists whatever happens next; a new one only once the call succeeded.
    if (!prepared.newThread) setThreadIdHeaders(res, prepared.threadId);
    const result = await this.invocation.run(caller, prepared, abortOnClose(res));
    setThreadIdHeaders(res, result.threadId);
    for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
    // A replay made no new log: it carries none.
    if (!result.replayed) res.setHeader(LOG_ID_HEADER, prepared.logId);
    if (result.type === 'stream') return this.stream(result, res);
    sendJson(res, HttpStatus.OK, completionResponse(result.completion));
  }

  private async stream(result: StreamResult, res: Response): Promise<void> {
    const sse = new SseResponse(res);
    sse.open();
    try {
      for await (const chunk of result.chunks) await sse.send(chunk);
    } catch (err) {
      sse.fail(streamErrorOf(err));
      return;
    }
    try {
      await result.finish();
    } catch (err) {
      // The reply could not be stored (thread deleted meanwhile, database down): no [DONE], one error event.
      sse.fail(streamErrorOf(err));
      // Unexpected errors still reach the exception filter, which logs them.
      if (!(err instanceof ApiException)) throw err;
      return;
    }
    sse.done();
  }
}

