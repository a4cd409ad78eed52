import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { PageQuery } from '../../common/pagination';
import { ApiErrors } from '../../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import {
  AddItemsBodyDto,
  CreateDatasetDto,
  DatasetChangeDto,
  DatasetDeletedDto,
  DatasetDto,
  DatasetItemDto,
  DatasetItemListDto,
  DatasetItemsQuery,
  DatasetListDto,
  DatasetVersionListDto,
  ImportItemsBodyDto,
  ItemFromSourceBodyDto,
  ItemPatchBodyDto,
} from './dataset.dto';
import { DatasetsService } from './datasets.service';

/** Evaluation datasets (docs/evals.md, "Datasets"). */
@ApiTags('Evaluations')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/datasets')
export class DatasetsController {
  constructor(private readonly datasets: DatasetsService) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post()
  @ApiOperation({ summary: 'Create a dataset', description: 'Empty, at version 0.' })
  @HttpCode(200)
  @ApiOkResponse({ type: DatasetDto })
  @ApiErrors(400, 409)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() dto: CreateDatasetDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DatasetDto> {
    return this.datasets.create(caller, dto, tx);
  }

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({ summary: 'List datasets', description: 'By name; `after` is the last name of the previous page.' })
  @ApiOkResponse({ type: DatasetListDto })
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: PageQuery): Promise<DatasetListDto> {
    return this.datasets.list(caller, query);
  }

  @RequireScope('registry:read')
  @Get(':name')
  @ApiOperation({ summary: 'Get a dataset' })
  @ApiOkResponse({ type: DatasetDto })
  @ApiErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string): Promise<DatasetDto> {
    return this.datasets.get(caller, name);
  }

  @RequireScope('registry:write')
  @Delete(':name')
  @ApiOperation({ summary: 'Delete a dataset', description: 'With its items and versions; runs over it keep their results.' })
  @ApiOkResponse({ type: DatasetDeletedDto })
  @ApiErrors(404)
  remove(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string): Promise<DatasetDeletedDto> {
    return this.datasets.remove(caller, name);
  }

  @RequireScope('registry:read')
  @Get(':name/versions')
  @ApiOperation({ summary: "List a dataset's versions", description: 'Newest first: the item count and the change of each.' })
  @ApiOkResponse({ type: DatasetVersionListDto })
  @ApiErrors(404)
  versions(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string): Promise<DatasetVersionListDto> {
    return this.datasets.versions(caller, name);
  }

  @RequireScope('registry:read')
  @Get(':name/items')
  @ApiOperation({ summary: 'List items', description: 'Of the current version or `version`, by id, keyset-paged.' })
  @ApiOkResponse({ type: DatasetItemListDto })
  @ApiErrors(400, 404)
  items(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('name') name: string,
    @Query() query: DatasetItemsQuery,
  ): Promise<DatasetItemListDto> {
    return this.datasets.items(caller, name, query);
  }

  @Idempotent()
  @RequireScope('registry:write')
  @Post(':name/items')
  @ApiOperation({ summary: 'Add items', description: 'Up to 1,000 in one call; they make one new version.' })
  @ApiBody({ type: AddItemsBodyDto })
  @HttpCode(200)
  @ApiOkResponse({ type: DatasetChangeDto })
  @ApiErrors(400, 404)
  add(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('name') name: string,
    @Body() body: AddItemsBodyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DatasetChangeDto> {
    return this.datasets.addItems(caller, name, body, tx);
  }

  @Idempotent()
  @RequireScope('registry:write')
  @Post(':name/import')
  @ApiOperation({
    summary: 'Import items from JSONL or CSV',
    description: 'The file as text, up to 1,000 items; every problem is listed with its line.',
  })
  @ApiBody({ type: ImportItemsBodyDto })
  @HttpCode(200)
  @ApiOkResponse({ type: DatasetChangeDto })
  @ApiErrors(400, 404)
  import(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('name') name: string,
    @Body() body: ImportItemsBodyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DatasetChangeDto> {
    return this.datasets.importItems(caller, name, body, tx);
  }

  @Idempotent()
  @RequireScope('registry:write')
  @Post(':name/items/from')
  @ApiOperation({
    summary: 'Add a log or a thread turn as an item',
    description: 'Its variables and messages as sent; its answer as `expected` unless `includeAnswer` is false.',
  })
  @ApiBody({ type: ItemFromSourceBodyDto })
  @HttpCode(200)
  @ApiOkResponse({ type: DatasetChangeDto })
  @ApiErrors(400, 404)
  addFrom(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('name') name: string,
    @Body() body: ItemFromSourceBodyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DatasetChangeDto> {
    return this.datasets.addFromSource(caller, name, body, tx);
  }

  @RequireScope('registry:read')
  @Get(':name/items/:itemId')
  @ApiOperation({ summary: 'Get an item (current version)' })
  @ApiOkResponse({ type: DatasetItemDto })
  @ApiErrors(404)
  item(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string, @Param('itemId') itemId: string): Promise<DatasetItemDto> {
    return this.datasets.item(caller, name, itemId);
  }

  @RequireScope('registry:write')
  @Patch(':name/items/:itemId')
  @ApiOperation({ summary: 'Edit an item', description: 'The fields given replace the stored ones; makes a new version.' })
  @ApiBody({ type: ItemPatchBodyDto })
  @ApiOkResponse({ type: DatasetItemDto })
  @ApiErrors(400, 404)
  patch(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('name') name: string,
    @Param('itemId') itemId: string,
    @Body() body: ItemPatchBodyDto,
  ): Promise<DatasetItemDto> {
    return this.datasets.patchItem(caller, name, itemId, body);
  }

  @RequireScope('registry:write')
  @Delete(':name/items/:itemId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove an item', description: 'From the next version on; earlier versions keep it.' })
  @ApiOkResponse({ type: DatasetChangeDto })
  @ApiErrors(404)
  removeItem(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('name') name: string,
    @Param('itemId') itemId: string,
  ): Promise<DatasetChangeDto> {
    return this.datasets.removeItem(caller, name, itemId);
  }
}
