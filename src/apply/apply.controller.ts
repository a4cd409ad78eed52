import { Body, Controller, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOrProject, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { APPLY_BODY_EXAMPLES, APPLY_BODY_SCHEMA, ApplyQuery, ExportQuery } from './apply.dto';
import { ApplyService } from './apply.service';
import { applyCallerOf } from './apply-caller';
import { ApplySummary, ApplySummaryDto } from './apply-summary';
import { ExportService } from './export.service';

@ApiTags('Registry: apply and export')
@ApiSecurity('admin-key')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@AdminOrProject()
@Controller('v2')
export class ApplyController {
  constructor(
    private readonly applier: ApplyService,
    private readonly exporter: ExportService,
  ) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post('apply')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Apply a parley.yaml',
    description:
      'Declarative and idempotent, in one transaction: creates what is missing, a new version only when content changed, deploys to the listed environments. ' +
      'The admin key may apply to any workspace/project (created when missing); a project key only to its own (else 403). ' +
      'An invalid file is a 400 listing every problem with its path (and line); nothing is changed then. ' +
      '`prune=true` also archives the prompts and deletes the environments the file no longer lists (what is still deployed is kept); ' +
      '`dryRun=true` answers what would change and writes nothing. See docs/apply.md.',
  })
  @ApiBody({ schema: APPLY_BODY_SCHEMA, examples: APPLY_BODY_EXAMPLES })
  @ApiOkResponse({ type: ApplySummaryDto })
  @ApiErrors(400)
  apply(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Query() query: ApplyQuery,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<ApplySummary> {
    const options = { prune: query.prune === 'true', dryRun: query.dryRun === 'true' };
    return this.applier.applyBody(body, applyCallerOf(principal), tx, options);
  }

  @RequireScope('registry:read')
  @Get('export')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  @ApiOperation({
    summary: 'Export a project as parley.yaml',
    description: 'The prompts and assistants as deployed; applying the result changes nothing.',
  })
  // Only the success is YAML; errors are the usual JSON bodies.
  @ApiOkResponse({ description: 'a parley.yaml file', content: { 'application/yaml': { schema: { type: 'string' } } } })
  @ApiErrors(400, 404)
  export(@CurrentPrincipal() principal: Principal, @Query() query: ExportQuery): Promise<string> {
    return this.exporter.exportFor(applyCallerOf(principal), query.workspace, query.project);
  }
}
