import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';

import { ProjectPrincipal } from '../auth/principal';
import type { WireRequest } from '../common/http/wire-request';
import { EmbeddingInvocation } from '../invocation/invocation-embed';
import { abortOnClose, LOG_ID_HEADER } from '../invocation/invoke-http';
import { toEmbeddingList } from './embeddings.codec';
import { EmbeddingsBody } from './embeddings.schema';
import { EmbeddingsService } from './embeddings.service';

/**
 * `POST /v1/embeddings` on the wire: parse, run on the core, answer OpenAI's list with the
 * rate-limit headers and x-parley-log-id. Errors reach the exception filter, which answers in
 * OpenAI's shape.
 */
@Injectable()
export class EmbeddingsTransport {
  constructor(
    private readonly embeddings: EmbeddingsService,
    private readonly invocation: EmbeddingInvocation,
  ) {}

  async create(caller: ProjectPrincipal, body: EmbeddingsBody, request: WireRequest, res: Response): Promise<CreateEmbeddingResponse> {
    const { input, encoding } = await this.embeddings.parse(caller, body, request);
    const outcome = await this.invocation.run(caller, input, abortOnClose(res));
    for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
    if (outcome.logId) res.setHeader(LOG_ID_HEADER, outcome.logId);
    return toEmbeddingList(outcome, encoding);
  }
}
