import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { OrderedPageQuery } from '../common/pagination';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreateMessageDto, UpdateMessageDto } from './dto/message-input.dto';
import { MessageDeletedDto, MessageDto, MessageListDto, MessageUpdatedDto } from './dto/message-response.dto';
import { MessagesService } from './messages.service';

@ApiTags('Thread messages')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/threads/:threadId/messages')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Idempotent()
  @RequireScope('threads:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create Thread Message', description: 'Adds a message to the thread without calling the model.' })
  @ApiOkResponse({ type: MessageDto })
  @ApiErrors(400, 404)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('threadId') threadId: string,
    @Body() dto: CreateMessageDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<MessageDto> {
    return this.messages.create(caller, threadId, dto, tx);
  }

  @RequireScope('threads:read')
  @Get()
  @ApiOperation({
    summary: 'List Thread Messages',
    description: 'order=asc (default) is oldest first. Next page: `after` = the last id of this page.',
  })
  @ApiOkResponse({ type: MessageListDto })
  @ApiErrors(400, 404)
  list(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('threadId') threadId: string,
    @Query() query: OrderedPageQuery,
  ): Promise<MessageListDto> {
    return this.messages.list(caller, threadId, query);
  }

  @RequireScope('threads:read')
  @Get(':messageId')
  @ApiOperation({ summary: 'Get Thread Message' })
  @ApiOkResponse({ type: MessageDto })
  @ApiErrors(404)
  get(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('threadId') threadId: string,
    @Param('messageId') messageId: string,
  ): Promise<MessageDto> {
    return this.messages.get(caller, threadId, messageId);
  }

  @Idempotent('repeatable')
  @RequireScope('threads:write')
  @Post(':messageId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update Thread Message', description: "The metadata given replaces the message's metadata entirely." })
  @ApiOkResponse({ type: MessageUpdatedDto })
  @ApiErrors(400, 404)
  update(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('threadId') threadId: string,
    @Param('messageId') messageId: string,
    @Body() dto: UpdateMessageDto,
  ): Promise<MessageUpdatedDto> {
    return this.messages.update(caller, threadId, messageId, dto);
  }

  @RequireScope('threads:write')
  @Delete(':messageId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete Thread Message', description: 'Soft delete.' })
  @ApiOkResponse({ type: MessageDeletedDto })
  @ApiErrors(404)
  delete(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('threadId') threadId: string,
    @Param('messageId') messageId: string,
  ): Promise<MessageDeletedDto> {
    return this.messages.delete(caller, threadId, messageId);
  }
}
