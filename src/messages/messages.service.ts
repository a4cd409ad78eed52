import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { threadMessageInputSchema } from '../common/chat';
import { badRequest, notFound } from '../common/errors';
import { OrderedPageQuery, pageLimit, toPage } from '../common/pagination';
import { CreateTransaction, plainTransaction } from '../idempotency/create-transaction';
import { RequestLogsService } from '../request-logs/request-logs.service';
import { ThreadsService } from '../threads/threads.service';
import { CreateMessageDto, UpdateMessageDto } from './dto/message-input.dto';
import { MessageDeletedDto, MessageDto, MessageListDto, MessageUpdatedDto } from './dto/message-response.dto';
import { MessageStore } from './message-store';
import { toMessageDto, toMessageListItemDto, toMessageUpdatedDto } from './messages.mapper';

const GET_NOT_FOUND = 'Thread not found, message not in thread, or message does not exist';
const UPDATE_NOT_FOUND = 'Message not found';
const DELETE_NOT_FOUND = 'Message not found or does not belong to the proper thread/project';

/**
 * The spec's /v2/threads/{id}/messages endpoints (MessagesController): their DTOs mapped to
 * MessageStore's calls, and the errors the spec documents for them. The core uses MessageStore itself.
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly messages: MessageStore,
    private readonly threads: ThreadsService,
    private readonly requestLogs: RequestLogsService,
  ) {}

  /** Adds one message without calling the model: stored as a turn of one message, `[message]`. */
  async create(
    caller: ProjectPrincipal,
    threadId: string,
    dto: CreateMessageDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<MessageDto> {
    const message = threadMessageInputSchema.parse(dto.message);
    return tx.run(async (manager) => {
      // A thread missing or deleted: ThreadNotLive, the spec's 404 "Thread not found".
      const [created] = await this.messages.appendTurns(manager, caller.projectId, threadId, [
        { content: [message], metadata: dto.metadata },
      ]);
      return toMessageDto(created);
    });
  }

  async list(caller: ProjectPrincipal, threadId: string, query: OrderedPageQuery): Promise<MessageListDto> {
    await this.threads.requireLive(caller.projectId, threadId);
    const limit = pageLimit(query);
    let afterSeq: number | null = null;
    if (query.after !== undefined) {
      afterSeq = await this.messages.sequenceOf(caller.projectId, threadId, query.after);
      if (afterSeq === null) throw badRequest('Invalid request parameters', ['after: no such message in this thread']);
    }
    const rows = await this.messages.listLive(caller.projectId, threadId, query.order ?? 'asc', afterSeq, limit + 1);
    const page = toPage(rows.map(toMessageListItemDto), limit);
    return { data: page.data, has_more: page.has_more, object: 'list', first_id: page.first_id, last_id: page.last_id };
  }

  async get(caller: ProjectPrincipal, threadId: string, messageId: string): Promise<MessageDto> {
    const message = await this.messages.findLiveEntity(caller.projectId, threadId, messageId);
    if (!message) throw notFound(GET_NOT_FOUND);
    const requestLog = message.requestLogId ? await this.requestLogs.summaryFor(caller.projectId, message.requestLogId) : null;
    return toMessageDto(message, requestLog);
  }

  async update(caller: ProjectPrincipal, threadId: string, messageId: string, dto: UpdateMessageDto): Promise<MessageUpdatedDto> {
    const updated = await this.messages.replaceMetadata(caller.projectId, threadId, messageId, dto.metadata);
    if (!updated) throw notFound(UPDATE_NOT_FOUND);
    return toMessageUpdatedDto(updated);
  }

  async delete(caller: ProjectPrincipal, threadId: string, messageId: string): Promise<MessageDeletedDto> {
    if (!(await this.messages.softDelete(caller.projectId, threadId, messageId))) throw notFound(DELETE_NOT_FOUND);
    return { id: messageId, object: 'thread.message.deleted', deleted: true };
  }
}
