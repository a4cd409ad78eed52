import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { ConversationItemsService } from './conversation-items.service';
import { parseItemListQuery } from './conversation-queries';
import { ConversationDto, ConversationItemListDto, CREATE_ITEMS_BODY, ITEM_SCHEMA } from './dto/conversation.dto';

@ApiTags('OpenAI: Conversations')
@ApiSecurity('api-key')
@ApiBearerAuth()
@Controller('v1/conversations/:conversationId/items')
export class ConversationItemsController {
  constructor(private readonly items: ConversationItemsService) {}

  @Idempotent()
  @RequireScope('threads:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create items', description: 'Up to 20 items, appended as one turn of the thread.' })
  @ApiBody({ schema: CREATE_ITEMS_BODY })
  @ApiQuery({ name: 'include', required: false, description: 'accepted; Parley has no extra fields to include' })
  @ApiOkResponse({ type: ConversationItemListDto })
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('conversationId') id: string,
    @Body() body: unknown,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<ConversationItemListDto> {
    return this.items.create(caller, id, body, tx);
  }

  @RequireScope('threads:read')
  @Get()
  @ApiOperation({ summary: 'List items', description: 'order=desc (default) is newest first; `after` = the last id of the previous page.' })
  @ApiQuery({ name: 'after', required: false })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'order', required: false, enum: ['asc', 'desc'] })
  @ApiQuery({ name: 'include', required: false, description: 'accepted; Parley has no extra fields to include' })
  @ApiOkResponse({ type: ConversationItemListDto })
  list(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('conversationId') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ConversationItemListDto> {
    return this.items.list(caller, id, parseItemListQuery(query));
  }

  @RequireScope('threads:read')
  @Get(':itemId')
  @ApiOperation({ summary: 'Retrieve an item' })
  @ApiOkResponse({ schema: ITEM_SCHEMA })
  retrieve(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('conversationId') id: string,
    @Param('itemId') itemId: string,
  ): Promise<unknown> {
    return this.items.retrieve(caller, id, itemId);
  }

  @RequireScope('threads:write')
  @Delete(':itemId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete an item', description: 'Soft delete (rows kept); answers the conversation.' })
  @ApiOkResponse({ type: ConversationDto })
  delete(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('conversationId') id: string,
    @Param('itemId') itemId: string,
  ): Promise<ConversationDto> {
    return this.items.delete(caller, id, itemId);
  }
}
