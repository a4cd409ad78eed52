import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { isUuid, newId } from '../common/ids';
import { ThreadStore } from '../threads/thread-store';
import { HistoryReader } from './history-reader';
import { MessagesRepository } from './messages.repository';
import { ThreadMessageEntity } from './thread-message.entity';

/** One turn to append: its messages stored as one thread message row. */
export interface ThreadTurn {
  content: Record<string, unknown>[];
  metadata?: Record<string, string | number>;
  requestLogId?: string | null;
  /** Given by the import only (ids derived from the export's, and its timestamps). */
  id?: string;
  createdAt?: Date;
}

/**
 * Thread messages as the core uses them (invocation, conversations and their items, compaction,
 * import, and the spec's MessagesService): every operation scoped by project and thread, an id
 * that is no UUID found nowhere, entities in and out; absence is null or false, never an HTTP
 * error, but for ThreadNotLive from an append to a thread that is gone.
 */
@Injectable()
export class MessageStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly messages: MessagesRepository,
    private readonly histories: HistoryReader,
    private readonly threads: ThreadStore,
  ) {}

  /**
   * Appends turns as one contiguous block of sequence numbers, under the thread's row lock, in the
   * caller's transaction. Throws ThreadNotLive when the thread is missing or deleted.
   */
  async appendTurns(manager: EntityManager, projectId: string, threadId: string, turns: ThreadTurn[]): Promise<ThreadMessageEntity[]> {
    const first = await this.threads.reserveSequence(manager, projectId, threadId, turns.length);
    return this.messages.insertMany(manager, turnRows(projectId, threadId, first, turns));
  }

  /**
   * Rows of turns whose sequence numbers a group-committed batch reserved already
   * (ThreadStore.reserveSequences), in the batch's transaction: one INSERT for every thread of it.
   */
  insertReserved(manager: EntityManager, rows: ThreadMessageEntity[]): Promise<ThreadMessageEntity[]> {
    return this.messages.insertMany(manager, rows);
  }

  /**
   * Rows of turns numbered back from their thread's last_seq (`seq` 0 is the last number), after a
   * reservation sent earlier in the same transaction (ThreadStore.reserveSequencesOrFail): see
   * MessagesRepository.insertCountedBack.
   */
  insertCountedBack(manager: EntityManager, rows: ThreadMessageEntity[]): Promise<void> {
    return this.messages.insertCountedBack(manager, rows);
  }

  /**
   * The chat messages of a live thread's live turns, in sequence order (an assistant's history), with
   * the sequence numbers of its turns (what a request log refers to instead of copying it); no
   * sequence numbers when a turn is only partly visible (items deleted one by one), as the turns
   * read back later could not tell which of their items were sent. Null when the thread is missing
   * or deleted.
   */
  async liveTurnsOf(projectId: string, threadId: string): Promise<{ seqs: number[]; messages: Record<string, unknown>[] } | null> {
    if (!isUuid(threadId)) return null;
    const turns = await this.histories.read(projectId, threadId);
    if (!turns) return null;
    const seqs = turns.some((turn) => turn.partial) ? [] : turns.map((turn) => turn.seq);
    return { seqs, messages: turns.flatMap((turn) => turn.content) };
  }

  /** A live thread's live turns in sequence order, each with its messages; null when the thread is missing or deleted. */
  async liveTurnsWithSeq(projectId: string, threadId: string): Promise<{ seq: number; messages: Record<string, unknown>[] }[] | null> {
    if (!isUuid(threadId)) return null;
    const turns = await this.histories.read(projectId, threadId);
    return turns ? turns.map((turn) => ({ seq: turn.seq, messages: turn.content })) : null;
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

  findLiveEntity(projectId: string, threadId: string, id: string): Promise<ThreadMessageEntity | null> {
    return isUuid(threadId) && isUuid(id) ? this.messages.findLive(projectId, threadId, id) : Promise.resolve(null);
  }

  /** Sequence number of a message of this thread (deleted ones included, so a cursor survives a delete). */
  sequenceOf(projectId: string, threadId: string, id: string): Promise<number | null> {
    return isUuid(id) ? this.messages.sequenceOf(projectId, threadId, id) : Promise.resolve(null);
  }

  /** The repository's keyset page of live messages, after the message numbered `afterSeq` (from the first when null). */
  listLive(...page: Parameters<MessagesRepository['listLive']>): Promise<ThreadMessageEntity[]> {
    return this.messages.listLive(...page);
  }

  /** listLive, but from the message numbered `fromSeq` itself (a conversation item cursor may point inside it). */
  listLiveFrom(...page: Parameters<MessagesRepository['listLiveFrom']>): Promise<ThreadMessageEntity[]> {
    return this.messages.listLiveFrom(...page);
  }

  /** Replaces a live message's metadata; null when the message is missing or deleted. */
  replaceMetadata(
    projectId: string,
    threadId: string,
    id: string,
    metadata: Record<string, string | number>,
  ): Promise<ThreadMessageEntity | null> {
    return isUuid(threadId) && isUuid(id) ? this.messages.replaceMetadata(projectId, threadId, id, metadata) : Promise.resolve(null);
  }

  /** Marks a live message deleted (its row kept), in one transaction; false when none was live. */
  async softDelete(projectId: string, threadId: string, id: string): Promise<boolean> {
    if (!isUuid(threadId) || !isUuid(id)) return false;
    return this.dataSource.transaction(async (manager) => {
      await this.messages.raiseHistoryVersion(manager, projectId, threadId);
      if (!(await this.messages.softDelete(manager, projectId, threadId, id, new Date()))) return false;
      // A compaction's turn deleted undoes it (docs/openai-conversations.md, "Compaction").
      await this.messages.uncompact(manager, projectId, threadId, id);
      return true;
    });
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

  /** Which of these ids exist in the project (deleted rows included), in the caller's transaction. */
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
