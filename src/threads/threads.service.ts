import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { badRequest, notFound } from '../common/errors';
import { isUuid, newId } from '../common/ids';
import { pageLimit, toPage } from '../common/pagination';
import { CreateTransaction, plainTransaction } from '../idempotency/create-transaction';
import { CreateThreadDto, UpdateThreadDto } from './dto/thread-input.dto';
import { ThreadListQuery } from './dto/thread-list.query';
import { ThreadCreatedDto, ThreadDeletedDto, ThreadDto, ThreadListDto, ThreadUpdatedDto } from './dto/thread-response.dto';
import { ThreadEntity } from './thread.entity';
import { toThreadCreatedDto, toThreadDto, toThreadListItemDto, toThreadUpdatedDto } from './threads.mapper';
import { SequenceDemand, ThreadsRepository } from './threads.repository';

const THREAD_NOT_FOUND = 'Thread not found';

@Injectable()
export class ThreadsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly threads: ThreadsRepository,
  ) {}

  async create(
    caller: ProjectPrincipal,
    dto: CreateThreadDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<ThreadCreatedDto> {
    return tx.runSingle(async (manager) =>
      toThreadCreatedDto(await this.insert(caller.projectId, dto.metadata ?? {}, { ...(dto.createLog ?? {}) }, manager)),
    );
  }

  /**
   * Also used by invocation, inside its transaction, with the call's request log as createLog and
   * the id it already announced in the x-parley-thread-id header.
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

  async list(caller: ProjectPrincipal, query: ThreadListQuery): Promise<ThreadListDto> {
    const limit = pageLimit(query);
    if (query.after !== undefined && !(isUuid(query.after) && (await this.threads.existsInProject(caller.projectId, query.after)))) {
      throw badRequest('Invalid request parameters', ['after: no such thread']);
    }
    const separator = query.metadata?.indexOf(':') ?? -1;
    const metadata = query.metadata ? { [query.metadata.slice(0, separator)]: query.metadata.slice(separator + 1) } : {};
    const rows = await this.listLiveEntities(caller.projectId, query.after, limit + 1, metadata);
    const page = toPage(rows.map(toThreadListItemDto), limit);
    return { object: 'list', ...page };
  }

  async get(caller: ProjectPrincipal, id: string): Promise<ThreadDto> {
    return toThreadDto(await this.requireLive(caller.projectId, id));
  }

  async update(caller: ProjectPrincipal, id: string, dto: UpdateThreadDto): Promise<ThreadUpdatedDto> {
    const updated = isUuid(id) ? await this.threads.replaceMetadata(caller.projectId, id, dto.metadata) : null;
    if (!updated) throw notFound(THREAD_NOT_FOUND);
    return toThreadUpdatedDto(updated);
  }

  /** The thread and all its messages are marked deleted in one transaction; rows stay. */
  async delete(caller: ProjectPrincipal, id: string): Promise<ThreadDeletedDto> {
    if (!isUuid(id)) throw notFound(THREAD_NOT_FOUND);
    const deleted = await this.dataSource.transaction((manager) =>
      this.threads.softDeleteWithMessages(manager, caller.projectId, id, new Date()),
    );
    if (!deleted) throw notFound(THREAD_NOT_FOUND);
    return { id, object: 'thread.deleted', deleted: true };
  }

  async requireLive(projectId: string, id: string): Promise<ThreadEntity> {
    const thread = isUuid(id) ? await this.threads.findLive(projectId, id) : null;
    if (!thread) throw notFound(THREAD_NOT_FOUND);
    return thread;
  }

  /** See ThreadsRepository.reserveSequence; throws the spec's 404 when the thread is gone. */
  async reserveSequence(manager: EntityManager, projectId: string, id: string, count: number): Promise<number> {
    const first = isUuid(id) ? await this.threads.reserveSequence(manager, projectId, id, count) : null;
    if (first === null) throw notFound(THREAD_NOT_FOUND);
    return first;
  }

  /* Entity-level access for the /v1 conversations view (its own error bodies and shapes). */

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

  replaceMetadataOf(projectId: string, id: string, metadata: ThreadEntity['metadata']): Promise<ThreadEntity | null> {
    return isUuid(id) ? this.threads.replaceMetadata(projectId, id, metadata) : Promise.resolve(null);
  }

  /** Soft delete of the thread and its messages, in one transaction; false when no live thread. */
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
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Demands sorted by (project, thread): every batch locks its threads in this order, so two batches never deadlock. */
function inKeyOrder<T extends { projectId: string; id: string }>(demands: readonly T[]): T[] {
  return [...demands].sort((a, b) => (a.projectId === b.projectId ? compare(a.id, b.id) : compare(a.projectId, b.projectId)));
}
