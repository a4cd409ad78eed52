import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreateThreadDto, UpdateThreadDto } from './dto/thread-input.dto';
import { ThreadListQuery } from './dto/thread-list.query';
import {
  ThreadCreatedDto,
  ThreadDeletedDto,
  ThreadDto,
  ThreadListDto,
  ThreadListItemDto,
  ThreadUpdatedDto,
} from './dto/thread-response.dto';
import { ThreadsService } from './threads.service';

@ApiTags('Threads')
// The spec's list item stays a named schema beside the list's entry with its optional preview.
@ApiExtraModels(ThreadListItemDto)
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/threads')
export class ThreadsController {
  constructor(private readonly threads: ThreadsService) {}

  @Idempotent()
  @RequireScope('threads:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create Thread' })
  @ApiOkResponse({ type: ThreadCreatedDto })
  @ApiErrors(400)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() dto: CreateThreadDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<ThreadCreatedDto> {
    return this.threads.create(caller, dto, tx);
  }

  @RequireScope('threads:read')
  @Get()
  @ApiOperation({
    summary: 'List Threads',
    description:
      'Newest first. Next page: `after` = the last id of this page. `metadata=key:value` (a Parley addition) keeps the threads whose metadata has that value (compared as text). ' +
      "`include=preview` (a Parley addition) adds each thread's `preview`: its first and last message, message count, calls and their cost.",
  })
  @ApiOkResponse({ type: ThreadListDto })
  @ApiErrors(400)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: ThreadListQuery): Promise<ThreadListDto> {
    return this.threads.list(caller, query);
  }

  @RequireScope('threads:read')
  @Get(':threadId')
  @ApiOperation({ summary: 'Get Thread' })
  @ApiOkResponse({ type: ThreadDto })
  @ApiErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('threadId') threadId: string): Promise<ThreadDto> {
    return this.threads.get(caller, threadId);
  }

  @Idempotent('repeatable')
  @RequireScope('threads:write')
  @Post(':threadId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update Thread', description: "The metadata given replaces the thread's metadata entirely." })
  @ApiOkResponse({ type: ThreadUpdatedDto })
  @ApiErrors(400, 404)
  update(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('threadId') threadId: string,
    @Body() dto: UpdateThreadDto,
  ): Promise<ThreadUpdatedDto> {
    return this.threads.update(caller, threadId, dto);
  }

  @RequireScope('threads:write')
  @Delete(':threadId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete Thread', description: 'Soft delete: the thread and all its messages are marked deleted.' })
  @ApiOkResponse({ type: ThreadDeletedDto })
  @ApiErrors(404)
  delete(@CurrentProject() caller: ProjectPrincipal, @Param('threadId') threadId: string): Promise<ThreadDeletedDto> {
    return this.threads.delete(caller, threadId);
  }
}
