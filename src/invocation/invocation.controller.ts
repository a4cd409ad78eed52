import { applyDecorators, Controller, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { Wire, WireRequest } from '../common/http/wire-request';
import { IdempotencyInCore } from '../idempotency/idempotency.interceptor';
import { BUDGET_RESPONSE_HEADERS } from '../limits/budget-headers';
import { CACHE_RESPONSE_HEADERS, CACHE_TTL_API_HEADER } from '../response-cache/response-cache-headers';
import { invokeBodyJsonSchema } from './dto';
import { COMPLETION_SCHEMA, INVOKE_ERROR_SCHEMA } from './invoke-swagger';
import { SpecInvokeTransport } from './spec-invoke.transport';

/** The Swagger description both invoke routes share. */
const ApiInvoke = () =>
  applyDecorators(
    ApiQuery({ name: 'v', required: false, description: 'pin a version number instead of the deployed one' }),
    ApiHeader({ name: 'x-parley-do-not-record', required: false, description: '"true": record no prompt or reply text in logs' }),
    ApiHeader(CACHE_TTL_API_HEADER),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: 'a retry with the same key and body within 24 h replays the first outcome (docs/security.md)',
    }),
    ApiBody({ schema: invokeBodyJsonSchema('assistant'), description: 'threadId applies to assistants only' }),
    ApiOkResponse({
      schema: COMPLETION_SCHEMA,
      description:
        'chat.completion, or a text/event-stream of chat.completion.chunk events when stream is true; assistants also send x-parley-thread-id (and x-langtail-thread-id)',
      headers: { ...BUDGET_RESPONSE_HEADERS, ...CACHE_RESPONSE_HEADERS },
    }),
    ApiResponse({ status: 400, schema: INVOKE_ERROR_SCHEMA, description: 'Invalid request body' }),
    ApiResponse({ status: 404, description: '{error: "Prompt deployment not found"} or {error: "Thread not found"}' }),
    ApiResponse({
      status: 429,
      description:
        '{error: "Too Many Requests", message}: a limit or budget of the key or project (Retry-After; docs/security.md, docs/usage.md)',
    }),
    ApiResponse({ status: 502, description: '{error, message}: the provider failed (429 rate limited, 504 timed out)' }),
  );

/**
 * Endpoints 1 and 2: one path shape for assistants and deployed prompts; the stored kind decides.
 * Registered last, so every fixed /v2/... route of the same length is matched first.
 */
@ApiTags('Invoke')
@ApiSecurity('api-key')
@IdempotencyInCore()
@RequireScope('invoke')
@Controller()
export class InvocationController {
  constructor(private readonly transport: SpecInvokeTransport) {}

  @Post('project-prompt/:slug/:environment')
  @HttpCode(200)
  @ApiInvoke()
  @ApiOperation({ summary: "Invoke a prompt or assistant of the key's project (langtail SDK path)" })
  invokeInKeyProject(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Param('environment') environment: string,
    @Query('v') v: unknown,
    @Wire() wire: WireRequest,
    @Res() res: Response,
  ): Promise<void> {
    return this.transport.invoke(caller, { slug, environment, versionParam: v }, wire, res);
  }

  @Post(':workspace/:project/:slug/:environment')
  @HttpCode(200)
  @ApiInvoke()
  @ApiOperation({ summary: 'Invoke Assistant / Invoke Deployed Prompt' })
  @ApiParam({ name: 'slug', description: 'assistant or prompt slug' })
  invoke(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('slug') slug: string,
    @Param('environment') environment: string,
    @Query('v') v: unknown,
    @Wire() wire: WireRequest,
    @Res() res: Response,
  ): Promise<void> {
    return this.transport.invoke(caller, { workspace, project, slug, environment, versionParam: v }, wire, res);
  }
}
