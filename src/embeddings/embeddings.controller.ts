import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { Wire, WireRequest } from '../common/http/wire-request';
import { OPENAI_ERROR_SCHEMA } from '../common/swagger/error-responses';
import { IdempotencyInCore } from '../idempotency/idempotency.interceptor';
import { BUDGET_RESPONSE_HEADERS } from '../limits/budget-headers';
import { EmbeddingsBodyDto } from './dto/embeddings-body.dto';
import { EMBEDDING_LIST_SCHEMA } from './embeddings.schema';
import { EmbeddingsTransport } from './embeddings.transport';

/** OpenAI's embeddings on Parley's providers, limits and request logs (docs/embeddings.md). */
@ApiTags('OpenAI-compatible')
@ApiSecurity('api-key')
@IdempotencyInCore()
@RequireScope('invoke')
@Controller('v1/embeddings')
export class EmbeddingsController {
  constructor(private readonly transport: EmbeddingsTransport) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create embeddings (OpenAI-compatible)',
    description:
      'model: `<provider>/<model>` of an OpenAI-compatible provider credential, or `local/embed` (deterministic local vectors). input: a text, up to 2048 texts, or token arrays (OpenAI-compatible providers only).',
  })
  @ApiHeader({ name: 'x-parley-do-not-record', required: false, description: '"true": record no input text in the log' })
  @ApiOkResponse({ schema: EMBEDDING_LIST_SCHEMA, description: 'a list of embeddings', headers: BUDGET_RESPONSE_HEADERS })
  @ApiResponse({ status: 400, schema: OPENAI_ERROR_SCHEMA, description: 'invalid or unsupported field, named in error.param' })
  @ApiResponse({ status: 401, schema: OPENAI_ERROR_SCHEMA, description: 'invalid API key' })
  @ApiResponse({ status: 403, schema: OPENAI_ERROR_SCHEMA, description: 'the key lacks the invoke scope' })
  @ApiResponse({ status: 404, schema: OPENAI_ERROR_SCHEMA, description: 'unknown model (code model_not_found)' })
  @ApiResponse({
    status: 429,
    schema: OPENAI_ERROR_SCHEMA,
    description: "rate limited (Retry-After), or a budget exhausted (`type` and `code` insufficient_quota: the SDKs' RateLimitError)",
  })
  @ApiResponse({ status: 502, schema: OPENAI_ERROR_SCHEMA, description: 'the provider failed (504: timed out)' })
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: EmbeddingsBodyDto,
    @Wire() wire: WireRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreateEmbeddingResponse> {
    return this.transport.create(caller, body, wire, res);
  }
}
