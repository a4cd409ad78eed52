import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository, SelectQueryBuilder } from 'typeorm';

import { hasSqlState } from '../common/errors';
import { fastInsert } from '../database/fast-insert';
import { queryRows } from '../database/prepared-statements';
import { ThreadEntity } from './thread.entity';
import { RawThreadPreview, threadPreviewSelects } from './thread-preview';

/** What reserveSequencesOrFail's statement fails with when a thread is missing or deleted. */
export const THREAD_NOT_LIVE_SQLSTATE = 'PT404';

/** Whether `err` is that failure. */
export function isThreadNotLive(err: unknown): boolean {
  return hasSqlState(err, THREAD_NOT_LIVE_SQLSTATE);
}

/** How many sequence numbers a batch asks of one thread. */
export type SequenceDemand = { projectId: string; id: string; count: number };

/** A batch's demands as the reservation functions take them: projects, threads and counts, in the order given. */
const demandArrays = (demands: SequenceDemand[]): [string[], string[], number[]] => [
  demands.map((d) => d.projectId),
  demands.map((d) => d.id),
  demands.map((d) => d.count),
];

/** Thread queries. Every one is scoped by project_id; "live" means not soft-deleted. */
@Injectable()
export class ThreadsRepository {
  constructor(@InjectRepository(ThreadEntity) private readonly threads: Repository<ThreadEntity>) {}

  insert(thread: ThreadEntity, manager?: EntityManager): Promise<ThreadEntity> {
    // A plain INSERT (not save(), which would SELECT first), its SQL built once: invokes create threads.
    return fastInsert(manager ?? this.threads.manager, ThreadEntity, [thread]).then(() => thread);
  }

  /** Several new threads in one INSERT (a group-committed batch of turns). */
  insertMany(threads: ThreadEntity[], manager: EntityManager): Promise<void> {
    return fastInsert(manager, ThreadEntity, threads);
  }

  findLive(projectId: string, id: string): Promise<ThreadEntity | null> {
    return this.threads.findOne({ where: { projectId, id, deletedAt: IsNull() } });
  }

  /** Whether the id names a thread of this project at all (a deleted one still works as a cursor). */
  async existsInProject(projectId: string, id: string): Promise<boolean> {
    return this.threads.exist({ where: { projectId, id } });
  }

  /** existsInProject inside the caller's transaction. */
  existsWithin(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
    return manager.getRepository(ThreadEntity).exist({ where: { projectId, id } });
  }

  /** Keyset page, newest first, on the partial index (project_id, id) WHERE deleted_at IS NULL. */
  listLive(projectId: string, afterId: string | undefined, take: number): Promise<ThreadEntity[]> {
    return this.listLiveQuery(projectId, afterId, take).getMany();
  }

  /** The listing query itself, exposed so its plan can be checked (test/pagination-index.serial.e2e-spec.ts). */
  listLiveQuery(projectId: string, afterId: string | undefined, take: number): SelectQueryBuilder<ThreadEntity> {
    const query = this.threads
      .createQueryBuilder('t')
      .where('t.projectId = :projectId AND t.deletedAt IS NULL', { projectId })
      .orderBy('t.id', 'DESC')
      .limit(take);
    return afterId ? query.andWhere('t.id < :afterId', { afterId }) : query;
  }

  /**
   * The same keyset page, keeping only threads whose metadata has every given key with the given
   * value (compared as text, so a stored number matches its digits). The filter is applied while
   * walking the live index; no index on metadata (GET /v1/conversations, an extension).
   */
  listLiveMatching(
    projectId: string,
    afterId: string | undefined,
    take: number,
    metadata: Record<string, string>,
  ): Promise<ThreadEntity[]> {
    return this.listLiveMatchingQuery(projectId, afterId, take, metadata).getMany();
  }

  private listLiveMatchingQuery(
    projectId: string,
    afterId: string | undefined,
    take: number,
    metadata: Record<string, string>,
  ): SelectQueryBuilder<ThreadEntity> {
    const query = this.listLiveQuery(projectId, afterId, take);
    Object.entries(metadata).forEach(([key, value], i) => {
      query.andWhere(`t.metadata ->> :key${i} = :value${i}`, { [`key${i}`]: key, [`value${i}`]: value });
    });
    return query;
  }

  /** listLiveMatching with each thread's preview (thread-preview.ts), in the same statement. */
  async listLivePreviewed(
    projectId: string,
    afterId: string | undefined,
    take: number,
    metadata: Record<string, string>,
  ): Promise<{ thread: ThreadEntity; preview: RawThreadPreview | undefined }[]> {
    const { entities, raw } = await this.listLivePreviewedQuery(projectId, afterId, take, metadata).getRawAndEntities<
      RawThreadPreview & { t_id: string }
    >();
    const previews = new Map(raw.map((row) => [row.t_id, row]));
    return entities.map((thread) => ({ thread, preview: previews.get(thread.id) }));
  }

  /** The previewed listing query itself, exposed so its plan can be checked (test/list-previews-plans.serial.e2e-spec.ts). */
  listLivePreviewedQuery(
    projectId: string,
    afterId: string | undefined,
    take: number,
    metadata: Record<string, string> = {},
  ): SelectQueryBuilder<ThreadEntity> {
    const query = this.listLiveMatchingQuery(projectId, afterId, take, metadata);
    for (const [expression, alias] of threadPreviewSelects('t', ':projectId')) query.addSelect(expression, alias);
    return query;
  }

  /** Replaces the metadata in one statement; null when the thread is missing or deleted. */
  async replaceMetadata(projectId: string, id: string, metadata: Record<string, string | number>): Promise<ThreadEntity | null> {
    const result = await this.threads
      .createQueryBuilder()
      .update(ThreadEntity)
      .set({ metadata })
      .where('project_id = :projectId AND id = :id AND deleted_at IS NULL', { projectId, id })
      .returning('*')
      .execute();
    const row = (result.raw as Record<string, unknown>[])[0];
    return row ? this.threads.create(this.fromRow(row)) : null;
  }

  /** Marks the thread and its messages deleted (run inside a transaction); false when no live thread. */
  async softDeleteWithMessages(manager: EntityManager, projectId: string, id: string, at: Date): Promise<boolean> {
    const result = await manager.update(ThreadEntity, { projectId, id, deletedAt: IsNull() }, { deletedAt: at });
    if ((result.affected ?? 0) === 0) return false;
    await manager.query('UPDATE thread_messages SET deleted_at = $3 WHERE project_id = $1 AND thread_id = $2 AND deleted_at IS NULL', [
      projectId,
      id,
      at,
    ]);
    return true;
  }

  /**
   * Takes `count` consecutive sequence numbers from a live thread. The UPDATE holds the thread's
   * row lock until the caller's transaction ends, so concurrent appends to one thread queue here
   * and each lands as one contiguous block. Returns the first number, or null if no live thread.
   */
  async reserveSequence(manager: EntityManager, projectId: string, id: string, count: number): Promise<number | null> {
    // The batch's statement with one thread: the reservation is written once (ReserveThreadSequences).
    const [first] = await this.reserveSequences(manager, [{ projectId, id, count }]);
    return first;
  }

  /**
   * reserveSequence for several threads (a group-committed batch of turns): each (project, thread)
   * takes its count; the first number of each block, null for a thread not live. One statement: the
   * ReserveThreadSequences migration's function runs the primary-key UPDATE for each thread in turn
   * (a single UPDATE joined to the batch's keys was planned as a scan of every live thread whenever
   * the table had no statistics: docs/decisions.md, "Plans that do not depend on statistics").
   * The row locks are taken in the order given (sort it, so two batches cannot deadlock).
   */
  async reserveSequences(manager: EntityManager, demands: SequenceDemand[]): Promise<(number | null)[]> {
    const [row] = await queryRows<{ firsts: (number | null)[] }>(
      manager,
      'SELECT reserve_thread_sequences($1::uuid[], $2::uuid[], $3::int[]) AS firsts',
      demandArrays(demands),
    );
    return row.firsts.map((first) => (first === null ? null : Number(first)));
  }

  /**
   * reserveSequences for a batch whose turns are sent in the same round trip: takes the numbers
   * but answers nothing, and fails the transaction with THREAD_NOT_LIVE_SQLSTATE when a thread of
   * the batch is missing or deleted (the ReserveThreadSequencesOrFail migration). The same locks,
   * taken in the same order.
   */
  async reserveSequencesOrFail(manager: EntityManager, demands: SequenceDemand[]): Promise<void> {
    await queryRows(manager, 'SELECT reserve_thread_sequences_or_fail($1::uuid[], $2::uuid[], $3::int[])', demandArrays(demands));
  }

  private fromRow(row: Record<string, unknown>): Partial<ThreadEntity> {
    return {
      projectId: row.project_id as string,
      id: row.id as string,
      metadata: row.metadata as ThreadEntity['metadata'],
      createLog: row.create_log as ThreadEntity['createLog'],
      lastSeq: Number(row.last_seq),
      createdAt: new Date(row.created_at as string | Date),
      deletedAt: row.deleted_at ? new Date(row.deleted_at as string | Date) : null,
    };
  }
}
