import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, LessThan, LessThanOrEqual, MoreThan, MoreThanOrEqual, Repository } from 'typeorm';

import { ComputedColumns, fastInsert } from '../database/fast-insert';
import { queryRows } from '../database/prepared-statements';
import { visibleContent } from './deleted-items';
import { HistoryTurn, KnownHistory, turnBytes } from './history-turns';
import { ThreadMessageEntity } from './thread-message.entity';

/** Turns of history read per query (see liveHistory). */
const HISTORY_PAGE = 500;
/** The least of each thread's first page in a batched read (liveHistories): a short history in one go. */
const MIN_BATCHED_PAGE = 32;

/**
 * The first turns of several live threads ($1 projects, $2 threads, $3 turns each at most), or only
 * the turns after $4's sequence number where the thread's history version is still $5's (what the
 * instance holds of it, HistoryCache); each row also says the thread's last_seq and version. Each
 * thread is found by its key inside a LATERAL with a LIMIT, which the planner cannot turn into a
 * hash join: as a plain JOIN, a table without statistics was read whole for every batch
 * (docs/decisions.md, "Plans that do not depend on statistics"; test/medium/history-reader.spec.ts).
 * The batch is walked by its subscripts, whose row estimate does not depend on the arrays: with
 * `unnest` of the arrays a plan for the batch at hand always looked cheaper than the generic plan,
 * so PostgreSQL planned the statement again on every execution (docs/decisions.md, "Prepared
 * statements keep one plan").
 */
export const LIVE_HISTORIES_SQL = `SELECT v.i, t.last_seq, t.history_version, m.seq, m.content, m.deleted_items, pg_column_size(m.content) AS size
   FROM generate_subscripts($1::uuid[], 1) AS v(i)
   CROSS JOIN LATERAL (
     SELECT t.project_id, t.id, t.last_seq, t.history_version FROM threads t
      WHERE t.project_id = ($1::uuid[])[v.i] AND t.id = ($2::uuid[])[v.i] AND t.deleted_at IS NULL
      LIMIT 1
   ) t
   LEFT JOIN LATERAL (
     SELECT m.seq, m.content, m.deleted_items FROM thread_messages m
      WHERE m.project_id = t.project_id AND m.thread_id = t.id AND m.deleted_at IS NULL AND m.compacted_by IS NULL
        AND m.seq > CASE WHEN t.history_version = ($5::int[])[v.i] THEN ($4::int[])[v.i] ELSE 0 END
      ORDER BY m.seq
      LIMIT $3
   ) m ON true
  ORDER BY v.i, m.seq`;

interface HistoryRow {
  seq: number | null;
  content: ThreadMessageEntity['content'] | null;
  deleted_items: string[] | null;
}

/** A thread's history as one batched read found it (liveHistories). */
export interface HistoryRead {
  /** Every live turn, or only those after the known lastSeq when `since` is true. */
  turns: HistoryTurn[];
  /** Read at the thread's version the caller knew: `turns` follow the ones it holds. */
  since: boolean;
  /**
   * The thread's last_seq and history version, when `turns` (with the caller's, if `since`) are
   * all of its history at them, and what `turns` take in memory (turnBytes); null when a longer
   * history was read on in later queries.
   */
  at: (KnownHistory & { bytes: number }) | null;
}

/** The rows of a history query as turns (a thread without turns reads as one row of nulls). */
function toTurns(rows: HistoryRow[]): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  for (const row of rows) {
    if (row.content === null) continue;
    turns.push({
      seq: Number(row.seq),
      content: visibleContent(row.content, row.deleted_items),
      partial: (row.deleted_items?.length ?? 0) > 0,
    });
  }
  return turns;
}

/** `seq` as an offset from the thread's last_seq (insertCountedBack). */
const SEQ_FROM_LAST: ComputedColumns = {
  key: 'seq-from-last',
  expressions: (column) => ({
    seq: `${column('seq')} + (SELECT t.last_seq FROM threads t WHERE t.project_id = ${column('projectId')} AND t.id = ${column('threadId')})`,
  }),
};

/** Thread message queries, scoped by project and thread; "live" means not soft-deleted. */
@Injectable()
export class MessagesRepository {
  constructor(@InjectRepository(ThreadMessageEntity) private readonly messages: Repository<ThreadMessageEntity>) {}

  insertMany(manager: EntityManager, rows: ThreadMessageEntity[]): Promise<ThreadMessageEntity[]> {
    // One multi-row INSERT (save() would SELECT each row first), its SQL built once: on every assistant invoke.
    return fastInsert(manager, ThreadMessageEntity, rows).then(() => rows);
  }

  /**
   * Turns whose `seq` is counted back from their thread's last_seq as it stands in the caller's
   * transaction (`seq` 0 is the last number, −1 the one before): the numbers a reservation earlier
   * in the same transaction took, without waiting for its answer (TurnWriter sends both in one
   * round trip).
   */
  insertCountedBack(manager: EntityManager, rows: ThreadMessageEntity[]): Promise<void> {
    return fastInsert(manager, ThreadMessageEntity, rows, SEQ_FROM_LAST);
  }

  findLive(projectId: string, threadId: string, id: string): Promise<ThreadMessageEntity | null> {
    return this.messages.findOne({ where: { projectId, threadId, id, deletedAt: IsNull() } });
  }

  /** Sequence number of a message of this thread (deleted ones included, so a cursor survives a delete). */
  async sequenceOf(projectId: string, threadId: string, id: string): Promise<number | null> {
    const row = await this.messages.findOne({ select: { seq: true }, where: { projectId, threadId, id } });
    return row ? row.seq : null;
  }

  /** Keyset page on the unique index (project_id, thread_id, seq), deleted turns skipped. */
  listLive(
    projectId: string,
    threadId: string,
    order: 'asc' | 'desc',
    afterSeq: number | null,
    take: number,
  ): Promise<ThreadMessageEntity[]> {
    const cursor = afterSeq === null ? {} : { seq: order === 'asc' ? MoreThan(afterSeq) : LessThan(afterSeq) };
    return this.messages.find({
      where: { projectId, threadId, deletedAt: IsNull(), ...cursor },
      order: { seq: order === 'asc' ? 'ASC' : 'DESC' },
      take,
    });
  }

  /**
   * The history of a live thread: the content of its live turns in sequence order, or null when
   * the thread is missing or deleted (what the invoke path needs before it calls the model); turns
   * a compaction covers are left out (its own turn stands for them). Up to
   * HISTORY_PAGE turns, the common case, cost one round trip (liveness and history in one query);
   * a longer thread is read in keyset pages of that size, so that parsing a huge result never holds
   * the event loop on one long stretch (a 10,000-message conversation: docs/openai-conversations.md).
   */
  async liveHistory(projectId: string, threadId: string): Promise<HistoryTurn[] | null> {
    return this.liveHistoryAfter(projectId, threadId, 0, []);
  }

  /**
   * liveHistory of several threads in one query (concurrent invokes' history reads, grouped by
   * HistoryReader): the first turns of each in one statement (HISTORY_PAGE shared out between the
   * threads, at least MIN_BATCHED_PAGE each), or only the turns after what the caller `known`s of it
   * while the thread's version is still the known one; the rest of a longer thread read as
   * liveHistory reads it, so that no result is much longer than a page. One entry per request, in
   * order (a thread asked for twice is answered twice); null for a thread missing or deleted.
   */
  async liveHistories(threads: readonly { projectId: string; threadId: string; known?: KnownHistory }[]): Promise<(HistoryRead | null)[]> {
    // Each thread's first page shrinks as the batch grows: one result stays about a page long.
    const firstPage = Math.max(MIN_BATCHED_PAGE, Math.floor(HISTORY_PAGE / threads.length));
    const rows = await queryRows<HistoryRow & { i: string | number; last_seq: number; history_version: number; size: number | null }>(
      this.messages.manager,
      LIVE_HISTORIES_SQL,
      [
        threads.map((t) => t.projectId),
        threads.map((t) => t.threadId),
        firstPage,
        threads.map((t) => t.known?.lastSeq ?? 0),
        threads.map((t) => t.known?.version ?? 0),
      ],
    );
    const found: (typeof rows | null)[] = threads.map(() => null);
    for (const row of rows) (found[Number(row.i) - 1] ??= []).push(row);
    return Promise.all(
      found.map(async (page, i): Promise<HistoryRead | null> => {
        if (!page) return null;
        const { known } = threads[i];
        const version = Number(page[0].history_version);
        const since = known !== undefined && known.version === version;
        const turns = toTurns(page);
        const last = page[page.length - 1].seq;
        if (page.length < firstPage || last === null) {
          const bytes = page.reduce((sum, row) => sum + (row.content === null ? 0 : turnBytes(Number(row.size))), 0);
          return { turns, since, at: { lastSeq: Number(page[0].last_seq), version, bytes } };
        }
        // A thread longer than one page: the rest as liveHistory reads it (later statements, so no
        // one last_seq describes the whole).
        const rest = await this.liveHistoryAfter(threads[i].projectId, threads[i].threadId, Number(last), turns);
        return rest && { turns: rest, since, at: null };
      }),
    );
  }

  /** The turns after `afterSeq`, appended to `turns`, in keyset pages (see liveHistory). */
  private async liveHistoryAfter(
    projectId: string,
    threadId: string,
    afterSeq: number,
    turns: HistoryTurn[],
  ): Promise<HistoryTurn[] | null> {
    for (;;) {
      const rows = await queryRows<HistoryRow>(
        this.messages.manager,
        // The page inside a LATERAL: its ORDER BY and LIMIT walk the (project, thread, seq) index
        // and stop after a page. As a plain LEFT JOIN ordered outside, the planner sorted every
        // remaining turn for each page (10,000 turns: 20 pages of a 10,000-row sort).
        `SELECT m.seq, m.content, m.deleted_items
           FROM threads t
           LEFT JOIN LATERAL (
             SELECT m.seq, m.content, m.deleted_items FROM thread_messages m
              WHERE m.project_id = t.project_id AND m.thread_id = t.id AND m.deleted_at IS NULL AND m.compacted_by IS NULL AND m.seq > $3
              ORDER BY m.seq
              LIMIT ${HISTORY_PAGE}
           ) m ON true
          WHERE t.project_id = $1 AND t.id = $2 AND t.deleted_at IS NULL
          ORDER BY m.seq`,
        [projectId, threadId, afterSeq],
      );
      if (rows.length === 0) return null;
      turns.push(...toTurns(rows));
      if (rows.length < HISTORY_PAGE || rows[rows.length - 1].seq === null) return turns;
      afterSeq = Number(rows[rows.length - 1].seq);
      // PGlite answers within this event loop, its promises resolving as microtasks: without a
      // yield the pages of a long thread would be read back to back, I/O waiting (220 ms for 10,000).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Like listLive, but the cursor message itself is included (a conversation item cursor may point inside it). */
  listLiveFrom(
    projectId: string,
    threadId: string,
    order: 'asc' | 'desc',
    fromSeq: number | null,
    take: number,
  ): Promise<ThreadMessageEntity[]> {
    const cursor = fromSeq === null ? {} : { seq: order === 'asc' ? MoreThanOrEqual(fromSeq) : LessThanOrEqual(fromSeq) };
    return this.messages.find({
      where: { projectId, threadId, deletedAt: IsNull(), ...cursor },
      order: { seq: order === 'asc' ? 'ASC' : 'DESC' },
      take,
    });
  }

  /** The live message, its row locked until the caller's transaction ends. */
  findLiveForUpdate(manager: EntityManager, projectId: string, threadId: string, id: string): Promise<ThreadMessageEntity | null> {
    return manager.getRepository(ThreadMessageEntity).findOne({
      where: { projectId, threadId, id, deletedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Turns up to `throughSeq` not covered yet now name the compaction turn `compactionId`. */
  async markCompacted(
    manager: EntityManager,
    projectId: string,
    threadId: string,
    throughSeq: number,
    compactionId: string,
  ): Promise<void> {
    await manager.query(
      'UPDATE thread_messages SET compacted_by = $4 WHERE project_id = $1 AND thread_id = $2 AND seq <= $3 AND compacted_by IS NULL AND id <> $4',
      [projectId, threadId, throughSeq, compactionId],
    );
  }

  /**
   * A compaction's turn deleted: the turns it covered pass to the compaction that covers it (whose
   * summary includes its summary), or are the model's again (a plain column test keeps the history
   * query linear, see liveHistory). A no-op for any other turn.
   */
  async uncompact(manager: EntityManager, projectId: string, threadId: string, compactionId: string): Promise<void> {
    await manager.query(
      `UPDATE thread_messages SET compacted_by = (SELECT c.compacted_by FROM thread_messages c WHERE c.project_id = $1 AND c.id = $3)
        WHERE project_id = $1 AND thread_id = $2 AND compacted_by = $3`,
      [projectId, threadId, compactionId],
    );
  }

  async setDeletedItems(
    manager: EntityManager,
    projectId: string,
    threadId: string,
    id: string,
    deletedItems: string[],
    deletedAt: Date | null,
  ): Promise<void> {
    await manager.update(ThreadMessageEntity, { projectId, threadId, id }, { deletedItems, ...(deletedAt ? { deletedAt } : {}) });
  }

  /** Which of these ids exist in the project (deleted rows included). */
  async existingIds(manager: EntityManager, projectId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await manager.getRepository(ThreadMessageEntity).find({ select: { id: true }, where: { projectId, id: In(ids) } });
    return new Set(rows.map((row) => row.id));
  }

  async replaceMetadata(
    projectId: string,
    threadId: string,
    id: string,
    metadata: Record<string, string | number>,
  ): Promise<ThreadMessageEntity | null> {
    const result = await this.messages.update({ projectId, threadId, id, deletedAt: IsNull() }, { metadata });
    return (result.affected ?? 0) > 0 ? this.messages.findOne({ where: { projectId, threadId, id } }) : null;
  }

  async softDelete(manager: EntityManager, projectId: string, threadId: string, id: string, at: Date): Promise<boolean> {
    const result = await manager.update(ThreadMessageEntity, { projectId, threadId, id, deletedAt: IsNull() }, { deletedAt: at });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Raises the thread's history version in every transaction that changes turns the thread already
   * has (every UPDATE of thread_messages but metadata's), before any such turn is touched, so that
   * what an instance holds of its history is read again whole (HistoryCache; the
   * ThreadHistoryVersion migration). Before, because it takes the thread's row lock (a compaction's
   * append took it already): thread before turns, the order an append takes them, so that two such
   * transactions cannot deadlock.
   */
  async raiseHistoryVersion(manager: EntityManager, projectId: string, threadId: string): Promise<void> {
    await manager.query('UPDATE threads SET history_version = history_version + 1 WHERE project_id = $1 AND id = $2', [
      projectId,
      threadId,
    ]);
  }
}
