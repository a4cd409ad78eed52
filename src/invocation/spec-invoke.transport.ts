import { STATUS_CODES } from 'node:http';

import { Injectable } from '@nestjs/common';
import type { Response } from 'express';

import { ProjectPrincipal } from '../auth/principal';
import { ApiException } from '../common/errors';
import type { WireRequest } from '../common/http/wire-request';
import { InvocationService } from './invocation.service';
import { InvocationCodec, renderInvocation } from './invocation-renderer';
import { completionResponse } from './invoke-request';
import { SpecInvokeParser, SpecInvokeRoute } from './spec-invoke.parser';

/**
 * The object of the spec's error event after the headers: the `{error, message}` of a provider
 * failure as they are, the invoke's `{error: "Thread not found"}` with its status name as type;
 * anything else is an internal error, told without details.
 */
function specStreamError(err: unknown): { message: string; type: string; status: number } {
  if (!(err instanceof ApiException)) return { message: 'Internal server error', type: STATUS_CODES[500]!, status: 500 };
  const status = err.getStatus();
  const { error, message } = err.body as { error?: unknown; message?: unknown };
  const type = STATUS_CODES[status] ?? 'Error';
  if (typeof message === 'string') return { message, type: typeof error === 'string' ? error : type, status };
  return { message: typeof error === 'string' ? error : type, type, status };
}

/** The spec's completion (its fields plus usage), its chunks as the core yields them, its error event. */
export const SPEC_INVOKE_CODEC: InvocationCodec = {
  completion: completionResponse,
  chunk: (chunk) => chunk,
  end: () => [],
  error: specStreamError,
};

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

  async invoke(caller: ProjectPrincipal, route: SpecInvokeRoute, wire: WireRequest, res: Response): Promise<void> {
    const prepared = await this.invocation.prepare(caller, await this.parser.parse(caller, route, wire));
    await renderInvocation(res, this.invocation, caller, prepared, SPEC_INVOKE_CODEC);
  }
}
