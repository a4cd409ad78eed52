import { Injectable } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import type { WireRequest } from '../common/http/wire-request';
import { InvocationService } from '../invocation/invocation.service';
import { ResponsesBody } from './responses.schema';
import { ResponsesService } from './responses.service';

/** OpenAI's InputTokenCountResponse. */
export interface InputTokenCountAnswer {
  object: 'response.input_tokens';
  input_tokens: number;
}

/**
 * POST /v1/responses/input_tokens (docs/openai-conversations.md, "Input token counts"): the body
 * of a would-be `POST /v1/responses`, planned exactly as it (template, history, input,
 * truncation), then counted by the provider's adapter instead of called. Nothing is stored or
 * logged, so an Idempotency-Key changes nothing.
 */
@Injectable()
export class InputTokensService {
  constructor(
    private readonly responses: ResponsesService,
    private readonly invocation: InvocationService,
  ) {}

  async count(caller: ProjectPrincipal, body: ResponsesBody, request: WireRequest): Promise<InputTokenCountAnswer> {
    const plan = await this.responses.plan(caller, request, body);
    const count = await this.invocation.countInputTokens(plan.prepared);
    return { object: 'response.input_tokens', input_tokens: count.input_tokens };
  }
}
