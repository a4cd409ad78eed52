import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { ApiException, notFound } from '../common/errors';
import { isUuid, newId } from '../common/ids';
import { ThreadEntity } from './thread.entity';
import { ThreadPreview, toThreadPreview } from './thread-preview';
import { SequenceDemand, ThreadsRepository } from './threads.repository';

/**
 * What a write to a thread that is missing or deleted throws in the caller's transaction (which it
 * rolls back): the thread endpoints' 404, `{error: {message: "Thread not found"}}`, wherever it
 * escapes (/v1 re-shapes it). A caller that answers otherwise catches it by its class.
 */
export class ThreadNotLive extends ApiException {
  constructor() {
    super(HttpStatus.NOT_FOUND, notFound('Thread not found').body);
  }
}

/**
 * Threads as the core uses them (invocation, conversations, import, the messages store): every
 * operation scoped by project, an id that is no UUID found nowhere, entities in and out; absence
 * is null or false, never an HTTP error, but for ThreadNotLive. The spec's /v2/threads endpoints
 * are ThreadsService, over this.
 */
@Injectable()
export class ThreadStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly threads: ThreadsRepository,
  ) {}

  /**
   * A new thread, in the caller's transaction when `manager` is given: invocation passes the call's
   * request log as createLog and the id it already announced in the x-parley-thread-id header.
   */
  insert(
    projectId: string,
    metadata: ThreadEntity['metadata'],
    createLog: ThreadEntity['createLog'],
    manager?: EntityManager,
    id: string = newId(),
    createdAt: Date = new Date(),
  ): Promise<ThreadEntity> {
    return this.threads.insert(this.newThread(projectId, metadata, createLog, id, createdAt), manager);
  }

  /** Threads opened by a group-committed batch of invokes, in its transaction. */
  insertMany(manager: EntityManager, threads: { projectId: string; id: string; createLog: ThreadEntity['createLog'] }[]): Promise<void> {
    const createdAt = new Date();
    return this.threads.insertMany(
      threads.map((t) => this.newThread(t.projectId, {}, t.createLog, t.id, createdAt)),
      manager,
    );
  }

  /** See ThreadsRepository.reserveSequence; throws ThreadNotLive when the thread is missing or deleted. */
  async reserveSequence(manager: EntityManager, projectId: string, id: string, count: number): Promise<number> {
    const first = isUuid(id) ? await this.threads.reserveSequence(manager, projectId, id, count) : null;
    if (first === null) throw new ThreadNotLive();
    return first;
  }

  /** See ThreadsRepository.reserveSequences: the first number of each live thread's block, by `projectId/id`. */
  async reserveSequences(manager: EntityManager, demands: SequenceDemand[]): Promise<Map<string, number>> {
    const sorted = inKeyOrder(demands);
    const firsts = await this.threads.reserveSequences(manager, sorted);
    const reserved = new Map<string, number>();
    sorted.forEach((d, i) => {
      const first = firsts[i];
      if (first !== null) reserved.set(`${d.projectId}/${d.id}`, first);
    });
    return reserved;
  }

  /** See ThreadsRepository.reserveSequencesOrFail: the same reservation, in key order, answering nothing. */
  reserveSequencesOrFail(manager: EntityManager, demands: SequenceDemand[]): Promise<void> {
    return this.threads.reserveSequencesOrFail(manager, inKeyOrder(demands));
  }

  findLive(projectId: string, id: string): Promise<ThreadEntity | null> {
    return isUuid(id) ? this.threads.findLive(projectId, id) : Promise.resolve(null);
  }

  /** Whether the id names a thread of this project, deleted ones included. */
  async exists(projectId: string, id: string): Promise<boolean> {
    return isUuid(id) && (await this.threads.existsInProject(projectId, id));
  }

  /** Newest first, `take` rows after the cursor, optionally only those whose metadata matches. */
  listLiveEntities(
    projectId: string,
    afterId: string | undefined,
    take: number,
    metadata: Record<string, string> = {},
  ): Promise<ThreadEntity[]> {
    return Object.keys(metadata).length > 0
      ? this.threads.listLiveMatching(projectId, afterId, take, metadata)
      : this.threads.listLive(projectId, afterId, take);
  }

  /** listLiveEntities, each thread with its preview (first and last message, counts, cost), in one statement. */
  async listLivePreviewed(
    projectId: string,
    afterId: string | undefined,
    take: number,
    metadata: Record<string, string> = {},
  ): Promise<{ thread: ThreadEntity; preview: ThreadPreview }[]> {
    const rows = await this.threads.listLivePreviewed(projectId, afterId, take, metadata);
    return rows.map(({ thread, preview }) => ({ thread, preview: toThreadPreview(preview) }));
  }

  /** Replaces the metadata in one statement; null when the thread is missing or deleted. */
  replaceMetadataOf(projectId: string, id: string, metadata: ThreadEntity['metadata']): Promise<ThreadEntity | null> {
    return isUuid(id) ? this.threads.replaceMetadata(projectId, id, metadata) : Promise.resolve(null);
  }

  /** Soft delete of the thread and its messages, in one transaction (rows stay); false when no live thread. */
  async softDelete(projectId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.dataSource.transaction((manager) => this.threads.softDeleteWithMessages(manager, projectId, id, new Date()));
  }

  /**
   * In the caller's transaction: 'live' (and its row locked until the transaction ends, so appends
   * and checks made under it are serialised), 'deleted', or 'missing'.
   */
  async lockState(manager: EntityManager, projectId: string, id: string): Promise<'live' | 'deleted' | 'missing'> {
    if ((await this.threads.reserveSequence(manager, projectId, id, 0)) !== null) return 'live';
    return (await this.threads.existsWithin(manager, projectId, id)) ? 'deleted' : 'missing';
  }

  private newThread(
    projectId: string,
    metadata: ThreadEntity['metadata'],
    createLog: ThreadEntity['createLog'],
    id: string,
    createdAt: Date,
  ): ThreadEntity {
    return Object.assign(new ThreadEntity(), {
      projectId,
      id,
      metadata,
      createLog,
      lastSeq: 0,
      createdAt,
      deletedAt: null,
    });
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Demands sorted by (project, thread): every batch locks its threads in this order, so two batches never deadlock. */
function inKeyOrder<T extends { projectId: string; id: string }>(demands: readonly T[]): T[] {
  return [...demands].sort((a, b) => (a.projectId === b.projectId ? compare(a.id, b.id) : compare(a.projectId, b.projectId)));
}
