import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { parseConversationListQuery } from './conversation-queries';
import { ConversationsService } from './conversations.service';
import {
  ConversationDeletedDto,
  ConversationDto,
  ConversationListDto,
  CREATE_CONVERSATION_BODY,
  UPDATE_CONVERSATION_BODY,
} from './dto/conversation.dto';

/** OpenAI's Conversations API over Parley's threads (docs/openai-conversations.md). */
@ApiTags('OpenAI: Conversations')
@ApiSecurity('api-key')
@ApiBearerAuth()
@Controller('v1/conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Idempotent()
  @RequireScope('threads:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a conversation',
    description: 'A new thread (same id on /v2), with up to 20 initial items as its first turn.',
  })
  @ApiBody({ schema: CREATE_CONVERSATION_BODY, required: false })
  @ApiOkResponse({ type: ConversationDto })
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: unknown,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<ConversationDto> {
    return this.conversations.create(caller, body, tx);
  }

  @RequireScope('threads:read')
  @Get()
  @ApiOperation({
    summary: 'List conversations (Parley extension)',
    description: 'Newest first; `after` = the last id of the previous page; `metadata[key]=value` keeps only matching conversations.',
  })
  @ApiQuery({ name: 'after', required: false })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiOkResponse({ type: ConversationListDto })
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: Record<string, unknown>): Promise<ConversationListDto> {
    return this.conversations.list(caller, parseConversationListQuery(query));
  }

  @RequireScope('threads:read')
  @Get(':conversationId')
  @ApiOperation({ summary: 'Retrieve a conversation' })
  @ApiOkResponse({ type: ConversationDto })
  retrieve(@CurrentProject() caller: ProjectPrincipal, @Param('conversationId') id: string): Promise<ConversationDto> {
    return this.conversations.retrieve(caller, id);
  }

  @Idempotent('repeatable')
  @RequireScope('threads:write')
  @Post(':conversationId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a conversation', description: "The metadata given replaces the conversation's." })
  @ApiBody({ schema: UPDATE_CONVERSATION_BODY })
  @ApiOkResponse({ type: ConversationDto })
  update(@CurrentProject() caller: ProjectPrincipal, @Param('conversationId') id: string, @Body() body: unknown): Promise<ConversationDto> {
    return this.conversations.update(caller, id, body);
  }

  @RequireScope('threads:write')
  @Delete(':conversationId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete a conversation',
    description: 'Soft delete (Parley): rows are kept, the conversation and its items are then not found.',
  })
  @ApiOkResponse({ type: ConversationDeletedDto })
  delete(@CurrentProject() caller: ProjectPrincipal, @Param('conversationId') id: string): Promise<ConversationDeletedDto> {
    return this.conversations.delete(caller, id);
  }
}
