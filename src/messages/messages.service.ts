import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { threadMessageInputSchema } from '../common/chat';
import { badRequest, notFound } from '../common/errors';
import { isUuid, newId } from '../common/ids';
import { OrderedPageQuery, pageLimit, toPage } from '../common/pagination';
import { CreateTransaction, plainTransaction } from '../idempotency/create-transaction';
import { RequestLogsService } from '../request-logs/request-logs.service';
import { ThreadsService } from '../threads/threads.service';
import { CreateMessageDto, UpdateMessageDto } from './dto/message-input.dto';
import { MessageDeletedDto, MessageDto, MessageListDto, MessageUpdatedDto } from './dto/message-response.dto';
import { HistoryReader } from './history-reader';
import { toMessageDto, toMessageListItemDto, toMessageUpdatedDto } from './messages.mapper';
import { MessagesRepository } from './messages.repository';
import { ThreadMessageEntity } from './thread-message.entity';

export interface ThreadTurn {
  content: Record<string, unknown>[];
  metadata?: Record<string, string | number>;
  requestLogId?: string | null;
  /** Given by the import only (ids derived from the export's, and its timestamps). */
  id?: string;
  createdAt?: Date;
}

const GET_NOT_FOUND = 'Thread not found, message not in thread, or message does not exist';
const UPDATE_NOT_FOUND = 'Message not found';
const DELETE_NOT_FOUND = 'Message not found or does not belong to the proper thread/project';

@Injectable()
export class MessagesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly messages: MessagesRepository,
    private readonly histories: HistoryReader,
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
      const [created] = await this.appendTurns(manager, caller.projectId, threadId, [{ content: [message], metadata: dto.metadata }]);
      return toMessageDto(created);
    });
  }

  /**
   * Appends turns as one contiguous block of sequence numbers, under the thread's row lock, in the
   * caller's transaction. Throws "Thread not found" when the thread is missing or deleted.
   */
  async appendTurns(manager: EntityManager, projectId: string, threadId: string, turns: ThreadTurn[]): Promise<ThreadMessageEntity[]> {
    const first = await this.threads.reserveSequence(manager, projectId, threadId, turns.length);
    return this.messages.insertMany(manager, turnRows(projectId, threadId, first, turns));
  }

  /**
   * Rows of turns whose sequence numbers a group-committed batch reserved already
   * (ThreadsService.reserveSequences), in the batch's transaction: one INSERT for every thread of it.
   */
  insertReserved(manager: EntityManager, rows: ThreadMessageEntity[]): Promise<ThreadMessageEntity[]> {
    return this.messages.insertMany(manager, rows);
  }

  /**
   * Rows of turns numbered back from their thread's last_seq (`seq` 0 is the last number), after a
   * reservation sent earlier in the same transaction (ThreadsService.reserveSequencesOrFail): see
   * MessagesRepository.insertCountedBack.
   */
  insertCountedBack(manager: EntityManager, rows: ThreadMessageEntity[]): Promise<void> {
    return this.messages.insertCountedBack(manager, rows);
  }

  /** The chat messages of a live thread's live turns, in sequence order (an assistant's history), in one query; null when the thread is missing or deleted. */
  async liveHistoryOf(projectId: string, threadId: string): Promise<Record<string, unknown>[] | null> {
    const turns = await this.liveTurnsOf(projectId, threadId);
    return turns && turns.messages;
  }

  /**
   * The same history with the sequence numbers of its turns (what a request log refers to instead
   * of copying it); no sequence numbers when a turn is only partly visible (items deleted one by
   * one), as the turns read back later could not tell which of their items were sent.
   */
  async liveTurnsOf(projectId: string, threadId: string): Promise<{ seqs: number[]; messages: Record<string, unknown>[] } | null> {
    if (!isUuid(threadId)) return null;
    const turns = await this.histories.read(projectId, threadId);
    if (!turns) return null;
    const seqs = turns.some((turn) => turn.partial) ? [] : turns.map((turn) => turn.seq);
    return { seqs, messages: turns.flatMap((turn) => turn.content) };
  }

  /**
   * What a compaction of the thread summarizes: the messages of its live turns no compaction covers
   * yet (the model's history) and the last of their sequence numbers; null when the thread is
   * missing or deleted.
   */
  async compactableOf(
    projectId: string,
    threadId: string,
  ): Promise<{ throughSeq: number | null; messages: Record<string, unknown>[] } | null> {
    if (!isUuid(threadId)) return null;
    const turns = await this.messages.liveHistory(projectId, threadId);
    if (!turns) return null;
    return { throughSeq: turns.length > 0 ? turns[turns.length - 1].seq : null, messages: turns.flatMap((turn) => turn.content) };
  }

  /**
   * Appends a compaction's turn and marks the turns it covers (every one up to `throughSeq` that no
   * compaction covers yet) in the caller's transaction: one statement, rows kept.
   */
  async appendCompaction(
    manager: EntityManager,
    projectId: string,
    threadId: string,
    throughSeq: number,
    turn: ThreadTurn,
  ): Promise<ThreadMessageEntity> {
    const [created] = await this.appendTurns(manager, projectId, threadId, [turn]);
    await this.messages.raiseHistoryVersion(manager, projectId, threadId);
    await this.messages.markCompacted(manager, projectId, threadId, throughSeq, created.id);
    return created;
  }

  async list(caller: ProjectPrincipal, threadId: string, query: OrderedPageQuery): Promise<MessageListDto> {
    await this.threads.requireLive(caller.projectId, threadId);
    const limit = pageLimit(query);
    let afterSeq: number | null = null;
    if (query.after !== undefined) {
      afterSeq = isUuid(query.after) ? await this.messages.sequenceOf(caller.projectId, threadId, query.after) : null;
      if (afterSeq === null) throw badRequest('Invalid request parameters', ['after: no such message in this thread']);
    }
    const rows = await this.messages.listLive(caller.projectId, threadId, query.order ?? 'asc', afterSeq, limit + 1);
    const page = toPage(rows.map(toMessageListItemDto), limit);
    return { data: page.data, has_more: page.has_more, object: 'list', first_id: page.first_id, last_id: page.last_id };
  }

  async get(caller: ProjectPrincipal, threadId: string, messageId: string): Promise<MessageDto> {
    const message = isUuid(threadId) && isUuid(messageId) ? await this.messages.findLive(caller.projectId, threadId, messageId) : null;
    if (!message) throw notFound(GET_NOT_FOUND);
    const requestLog = message.requestLogId ? await this.requestLogs.summaryFor(caller.projectId, message.requestLogId) : null;
    return toMessageDto(message, requestLog);
  }

  async update(caller: ProjectPrincipal, threadId: string, messageId: string, dto: UpdateMessageDto): Promise<MessageUpdatedDto> {
    const updated =
      isUuid(threadId) && isUuid(messageId)
        ? await this.messages.replaceMetadata(caller.projectId, threadId, messageId, dto.metadata)
        : null;
    if (!updated) throw notFound(UPDATE_NOT_FOUND);
    return toMessageUpdatedDto(updated);
  }

  async delete(caller: ProjectPrincipal, threadId: string, messageId: string): Promise<MessageDeletedDto> {
    const deleted =
      isUuid(threadId) &&
      isUuid(messageId) &&
      (await this.dataSource.transaction(async (manager) => {
        await this.messages.raiseHistoryVersion(manager, caller.projectId, threadId);
        if (!(await this.messages.softDelete(manager, caller.projectId, threadId, messageId, new Date()))) return false;
        // A compaction's turn deleted undoes it (docs/openai-conversations.md, "Compaction").
        await this.messages.uncompact(manager, caller.projectId, threadId, messageId);
        return true;
      }));
    if (!deleted) throw notFound(DELETE_NOT_FOUND);
    return { id: messageId, object: 'thread.message.deleted', deleted: true };
  }

  /* Entity-level access for the /v1 conversation items view and the import (their own shapes). */

  findLiveEntity(projectId: string, threadId: string, id: string): Promise<ThreadMessageEntity | null> {
    return isUuid(threadId) && isUuid(id) ? this.messages.findLive(projectId, threadId, id) : Promise.resolve(null);
  }

  sequenceOf(projectId: string, threadId: string, id: string): Promise<number | null> {
    return isUuid(id) ? this.messages.sequenceOf(projectId, threadId, id) : Promise.resolve(null);
  }

  listLiveFrom(
    projectId: string,
    threadId: string,
    order: 'asc' | 'desc',
    fromSeq: number | null,
    take: number,
  ): Promise<ThreadMessageEntity[]> {
    return this.messages.listLiveFrom(projectId, threadId, order, fromSeq, take);
  }

  /**
   * Marks one item position of a message deleted (see deleted-items.ts); the whole message is
   * soft-deleted once `remaining` (the positions still live, computed by the caller from the
   * locked row) is empty. Null when the message is missing or already deleted.
   */
  async deleteItem(
    projectId: string,
    threadId: string,
    id: string,
    position: string,
    remaining: (row: ThreadMessageEntity) => string[],
  ): Promise<ThreadMessageEntity | null> {
    if (!isUuid(threadId) || !isUuid(id)) return null;
    return this.dataSource.transaction(async (manager) => {
      await this.messages.raiseHistoryVersion(manager, projectId, threadId);
      const row = await this.messages.findLiveForUpdate(manager, projectId, threadId, id);
      if (!row) return null;
      const live = remaining(row);
      if (!live.includes(position)) return null;
      const deletedItems = [...(row.deletedItems ?? []), position];
      const rowDeleted = live.length === 1;
      await this.messages.setDeletedItems(manager, projectId, threadId, id, deletedItems, rowDeleted ? new Date() : null);
      // A compaction's turn deleted undoes it (docs/openai-conversations.md, "Compaction").
      if (rowDeleted) await this.messages.uncompact(manager, projectId, threadId, id);
      return row;
    });
  }

  existingIds(manager: EntityManager, projectId: string, ids: string[]): Promise<Set<string>> {
    return this.messages.existingIds(manager, projectId, ids);
  }
}

/** The rows of turns appended from sequence number `first` on, one per turn, in order. */
export function turnRows(projectId: string, threadId: string, first: number, turns: ThreadTurn[]): ThreadMessageEntity[] {
  const createdAt = new Date();
  return turns.map((turn, i) =>
    Object.assign(new ThreadMessageEntity(), {
      projectId,
      id: turn.id ?? newId(),
      threadId,
      seq: first + i,
      content: turn.content,
      metadata: turn.metadata ?? {},
      requestLogId: turn.requestLogId ?? null,
      deletedItems: null,
      compactedBy: null,
      createdAt: turn.createdAt ?? createdAt,
      deletedAt: null,
    }),
  );
}
