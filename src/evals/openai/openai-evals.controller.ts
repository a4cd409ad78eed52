import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { OpenAIEvalRunsService } from './openai-eval-runs.service';
import { OpenAIEvalsService } from './openai-evals.service';
import {
  ApiOpenAIErrors,
  deletedSchema,
  EVAL_SCHEMA,
  listSchema,
  OpenAIEvalCreateBodyDto,
  OpenAIEvalRunCreateBodyDto,
  OpenAIEvalUpdateBodyDto,
  OUTPUT_ITEM_SCHEMA,
  RUN_SCHEMA,
} from './openai-evals.swagger';

/** A list's query: OpenAI's cursor (`after`: the last id of the previous page), `limit` and `order`. */
const ApiListQuery = (...extra: Parameters<typeof ApiQuery>[0][]) =>
  applyDecorators(
    ApiQuery({ name: 'after', required: false }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    ApiQuery({ name: 'order', required: false, enum: ['asc', 'desc'] }),
    ...extra.map((query) => ApiQuery(query)),
  );

/**
 * OpenAI's Evals API over Parley's evaluations (docs/evals.md, "OpenAI's Evals API"): the official
 * `openai` SDK's `client.evals` works with a project key by base URL. Reading needs
 * `registry:read`; changing, `registry:write`; starting a run calls models, so `invoke` as well.
 */
@ApiTags('OpenAI-compatible')
@ApiSecurity('api-key')
@ApiBearerAuth()
@Controller('v1/evals')
export class OpenAIEvalsController {
  constructor(
    private readonly evals: OpenAIEvalsService,
    private readonly runs: OpenAIEvalRunsService,
  ) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create an eval',
    description: 'A custom item_schema and testing criteria: string_check, text_similarity (fuzzy_match), label_model, score_model.',
  })
  @ApiBody({ type: OpenAIEvalCreateBodyDto })
  @ApiOkResponse({ schema: EVAL_SCHEMA })
  @ApiOpenAIErrors(400)
  create(@CurrentProject() caller: ProjectPrincipal, @Body() body: OpenAIEvalCreateBodyDto, @InCreateTransaction() tx: CreateTransaction) {
    return this.evals.create(caller, body, tx);
  }

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({ summary: 'List evals' })
  @ApiListQuery({ name: 'order_by', required: false, enum: ['created_at', 'updated_at'] })
  @ApiOkResponse({ schema: listSchema(EVAL_SCHEMA) })
  @ApiOpenAIErrors(400)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: Record<string, unknown>) {
    return this.evals.list(caller, query);
  }

  @RequireScope('registry:read')
  @Get(':evalId')
  @ApiOperation({ summary: 'Get an eval' })
  @ApiOkResponse({ schema: EVAL_SCHEMA })
  @ApiOpenAIErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('evalId') evalId: string) {
    return this.evals.get(caller, evalId);
  }

  @Idempotent('repeatable')
  @RequireScope('registry:write')
  @Post(':evalId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update an eval', description: 'Its name and metadata.' })
  @ApiBody({ type: OpenAIEvalUpdateBodyDto })
  @ApiOkResponse({ schema: EVAL_SCHEMA })
  @ApiOpenAIErrors(400, 404)
  update(@CurrentProject() caller: ProjectPrincipal, @Param('evalId') evalId: string, @Body() body: OpenAIEvalUpdateBodyDto) {
    return this.evals.update(caller, evalId, body);
  }

  @RequireScope('registry:write')
  @Delete(':evalId')
  @ApiOperation({ summary: 'Delete an eval', description: 'With its runs (their experiment runs stay in /v2/evals/runs).' })
  @ApiOkResponse({ schema: deletedSchema('eval.deleted', 'eval_id') })
  @ApiOpenAIErrors(404)
  remove(@CurrentProject() caller: ProjectPrincipal, @Param('evalId') evalId: string) {
    return this.evals.remove(caller, evalId);
  }

  @Idempotent()
  @RequireScope('registry:write')
  @Post(':evalId/runs')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start an eval run',
    description:
      'jsonl (samples given) or completions (a deployed prompt `<slug>@<environment>` or `<provider>/<model>`); needs `invoke` too.',
  })
  @ApiBody({ type: OpenAIEvalRunCreateBodyDto })
  @ApiOkResponse({ schema: RUN_SCHEMA })
  @ApiOpenAIErrors(400, 404)
  createRun(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('evalId') evalId: string,
    @Body() body: OpenAIEvalRunCreateBodyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ) {
    return this.runs.create(caller, evalId, body, tx);
  }

  @RequireScope('registry:read')
  @Get(':evalId/runs')
  @ApiOperation({ summary: "List an eval's runs" })
  @ApiListQuery({ name: 'status', required: false, enum: ['queued', 'in_progress', 'completed', 'canceled', 'failed'] })
  @ApiOkResponse({ schema: listSchema(RUN_SCHEMA) })
  @ApiOpenAIErrors(400, 404)
  listRuns(@CurrentProject() caller: ProjectPrincipal, @Param('evalId') evalId: string, @Query() query: Record<string, unknown>) {
    return this.runs.list(caller, evalId, query);
  }

  @RequireScope('registry:read')
  @Get(':evalId/runs/:runId')
  @ApiOperation({ summary: 'Get an eval run', description: 'Its status and result counts while it runs.' })
  @ApiOkResponse({ schema: RUN_SCHEMA })
  @ApiOpenAIErrors(404)
  getRun(@CurrentProject() caller: ProjectPrincipal, @Param('evalId') evalId: string, @Param('runId') runId: string) {
    return this.runs.get(caller, evalId, runId);
  }

  @Idempotent('repeatable')
  @RequireScope('registry:write')
  @Post(':evalId/runs/:runId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel an eval run', description: 'Its calls in flight are aborted; the items stored stay.' })
  @ApiOkResponse({ schema: RUN_SCHEMA })
  @ApiOpenAIErrors(404)
  cancelRun(@CurrentProject() caller: ProjectPrincipal, @Param('evalId') evalId: string, @Param('runId') runId: string) {
    return this.runs.cancel(caller, evalId, runId);
  }

  @RequireScope('registry:write')
  @Delete(':evalId/runs/:runId')
  @ApiOperation({ summary: 'Delete an eval run', description: 'Cancelled if still going; its experiment run stays in /v2/evals/runs.' })
  @ApiOkResponse({ schema: deletedSchema('eval.run.deleted', 'run_id') })
  @ApiOpenAIErrors(404)
  removeRun(@CurrentProject() caller: ProjectPrincipal, @Param('evalId') evalId: string, @Param('runId') runId: string) {
    return this.runs.remove(caller, evalId, runId);
  }

  @RequireScope('registry:read')
  @Get(':evalId/runs/:runId/output_items')
  @ApiOperation({ summary: "List an eval run's output items", description: 'In the order of the data source; `status` pass or fail.' })
  @ApiListQuery({ name: 'status', required: false, enum: ['pass', 'fail'] })
  @ApiOkResponse({ schema: listSchema(OUTPUT_ITEM_SCHEMA) })
  @ApiOpenAIErrors(400, 404)
  outputItems(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('evalId') evalId: string,
    @Param('runId') runId: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.runs.outputItems(caller, evalId, runId, query);
  }

  @RequireScope('registry:read')
  @Get(':evalId/runs/:runId/output_items/:outputItemId')
  @ApiOperation({ summary: 'Get an output item' })
  @ApiOkResponse({ schema: OUTPUT_ITEM_SCHEMA })
  @ApiOpenAIErrors(404)
  outputItem(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('evalId') evalId: string,
    @Param('runId') runId: string,
    @Param('outputItemId') outputItemId: string,
  ) {
    return this.runs.outputItem(caller, evalId, runId, outputItemId);
  }
}
