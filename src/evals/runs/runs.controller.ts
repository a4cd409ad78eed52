import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiErrors } from '../../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { CompareDto, CompareQuery, CreateRunBodyDto, RunDto, RunItemListDto, RunItemsQuery, RunListDto, RunsQuery } from './run.dto';
import { RunsService } from './runs.service';

/** Experiment runs (docs/evals.md, "Experiments"). */
@ApiTags('Evaluations')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/evals/runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post()
  @ApiOperation({
    summary: 'Start an experiment run',
    description:
      'A version, an environment’s live version or a draft over a dataset version with graders; queued, run in the background. Needs `invoke` too.',
  })
  @ApiBody({ type: CreateRunBodyDto })
  @HttpCode(200)
  @ApiOkResponse({ type: RunDto })
  @ApiErrors(400, 404)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: CreateRunBodyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<RunDto> {
    return this.runs.create(caller, body, tx);
  }

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({ summary: 'List runs', description: 'Newest first; `after` is the last id of the previous page.' })
  @ApiOkResponse({ type: RunListDto })
  @ApiErrors(404)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: RunsQuery): Promise<RunListDto> {
    return this.runs.list(caller, query);
  }

  @RequireScope('registry:read')
  @Get(':id')
  @ApiOperation({ summary: 'Get a run', description: 'Its progress while it runs, its totals per grader, tokens and cost.' })
  @ApiOkResponse({ type: RunDto })
  @ApiErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('id') id: string): Promise<RunDto> {
    return this.runs.get(caller, id);
  }

  @RequireScope('registry:read')
  @Get(':id/items')
  @ApiOperation({
    summary: "List a run's items",
    description: 'Output, every grader’s score and reason, tokens, cost, latency and log id; by item id.',
  })
  @ApiOkResponse({ type: RunItemListDto })
  @ApiErrors(400, 404)
  items(@CurrentProject() caller: ProjectPrincipal, @Param('id') id: string, @Query() query: RunItemsQuery): Promise<RunItemListDto> {
    return this.runs.items(caller, id, query);
  }

  @Idempotent('repeatable')
  @RequireScope('registry:write')
  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a run',
    description: 'Its calls in flight are aborted on whichever instance runs it; stored items stay.',
  })
  @ApiOkResponse({ type: RunDto })
  @ApiErrors(404)
  cancel(@CurrentProject() caller: ProjectPrincipal, @Param('id') id: string): Promise<RunDto> {
    return this.runs.cancel(caller, id);
  }

  @RequireScope('registry:read')
  @Get(':id/compare/:baseId')
  @ApiOperation({
    summary: 'Compare a run with a base run',
    description:
      'Item by item (mean grader score): counts of improved, regressed and unchanged, per-grader means, and the items of one outcome.',
  })
  @ApiOkResponse({ type: CompareDto })
  @ApiErrors(400, 404)
  compare(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('id') id: string,
    @Param('baseId') baseId: string,
    @Query() query: CompareQuery,
  ): Promise<CompareDto> {
    return this.runs.compare(caller, id, baseId, query);
  }
}
