import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { badRequest, notFound } from '../common/errors';
import { pageLimit, toPage } from '../common/pagination';
import { CreateTransaction, plainTransaction } from '../idempotency/create-transaction';
import { CreateThreadDto, UpdateThreadDto } from './dto/thread-input.dto';
import { ThreadListQuery } from './dto/thread-list.query';
import { ThreadCreatedDto, ThreadDeletedDto, ThreadDto, ThreadListDto, ThreadUpdatedDto } from './dto/thread-response.dto';
import { ThreadEntity } from './thread.entity';
import { ThreadStore } from './thread-store';
import { toThreadCreatedDto, toThreadDto, toThreadListItemDto, toThreadUpdatedDto } from './threads.mapper';

const THREAD_NOT_FOUND = 'Thread not found';

/**
 * The spec's /v2/threads endpoints (ThreadsController): their DTOs mapped to ThreadStore's calls,
 * and the errors the spec documents for them. The core uses ThreadStore itself.
 */
@Injectable()
export class ThreadsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly threads: ThreadStore,
  ) {}

  async create(
    caller: ProjectPrincipal,
    dto: CreateThreadDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<ThreadCreatedDto> {
    return tx.runSingle(async (manager) =>
      toThreadCreatedDto(await this.threads.insert(caller.projectId, dto.metadata ?? {}, { ...(dto.createLog ?? {}) }, manager)),
    );
  }

  async list(caller: ProjectPrincipal, query: ThreadListQuery): Promise<ThreadListDto> {
    const limit = pageLimit(query);
    if (query.after !== undefined && !(await this.threads.exists(caller.projectId, query.after))) {
      throw badRequest('Invalid request parameters', ['after: no such thread']);
    }
    const separator = query.metadata?.indexOf(':') ?? -1;
    const metadata = query.metadata ? { [query.metadata.slice(0, separator)]: query.metadata.slice(separator + 1) } : {};
    if (query.include === 'preview') {
      const rows = await this.threads.listLivePreviewed(caller.projectId, query.after, limit + 1, metadata);
      return {
        object: 'list',
        ...toPage(
          rows.map(({ thread, preview }) => ({ ...toThreadListItemDto(thread), preview })),
          limit,
        ),
      };
    }
    const rows = await this.threads.listLiveEntities(caller.projectId, query.after, limit + 1, metadata);
    const page = toPage(rows.map(toThreadListItemDto), limit);
    return { object: 'list', ...page };
  }

  async get(caller: ProjectPrincipal, id: string): Promise<ThreadDto> {
    return toThreadDto(await this.requireLive(caller.projectId, id));
  }

  async update(caller: ProjectPrincipal, id: string, dto: UpdateThreadDto): Promise<ThreadUpdatedDto> {
    const updated = await this.threads.replaceMetadataOf(caller.projectId, id, dto.metadata);
    if (!updated) throw notFound(THREAD_NOT_FOUND);
    return toThreadUpdatedDto(updated);
  }

  /** The thread and all its messages are marked deleted in one transaction; rows stay. */
  async delete(caller: ProjectPrincipal, id: string): Promise<ThreadDeletedDto> {
    if (!(await this.threads.softDelete(caller.projectId, id))) throw notFound(THREAD_NOT_FOUND);
    return { id, object: 'thread.deleted', deleted: true };
  }

  /** The live thread, or the spec's 404 (also the messages endpoints'). */
  async requireLive(projectId: string, id: string): Promise<ThreadEntity> {
    const thread = await this.threads.findLive(projectId, id);
    if (!thread) throw notFound(THREAD_NOT_FOUND);
    return thread;
  }
}
