import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import type { ProjectPrincipal } from '../auth/principal';
import { JobQueue } from '../jobs/job-queue';

/** What a background job needs to run the response again on any instance: the caller and the request. */
export interface StoredRequest {
  caller: ProjectPrincipal;
  body: Record<string, unknown>;
  /** The headers the invocation reads (doNotRecord, metadata). */
  headers: Record<string, string>;
  url: string;
  ip: string | null;
  createdAt: number;
}

export interface ClaimedJob {
  projectId: string;
  id: string;
  background: boolean;
  request: StoredRequest;
}

/**
 * The responses' jobs on the one job queue (src/jobs/job-queue.ts, kind `response`): a row per
 * response being run (streamed or background), held by one instance's lease.
 */
@Injectable()
export class ResponseJobsRepository {
  constructor(private readonly queue: JobQueue) {}

  insert(
    manager: EntityManager,
    job: {
      projectId: string;
      id: string;
      background: boolean;
      request: StoredRequest | Record<string, never>;
      owner: string | null;
      leaseMs: number;
    },
  ): Promise<void> {
    return this.queue.insert(manager, { kind: 'response', ...job });
  }

  /** Claims up to `limit` queued jobs, oldest first, for `owner`. */
  async claim(owner: string, leaseMs: number, limit: number): Promise<ClaimedJob[]> {
    const rows = await this.queue.claim<StoredRequest>('response', owner, leaseMs, limit);
    return rows.map(({ projectId, id, background, request }) => ({ projectId, id, background, request }));
  }

  /**
   * Extends `owner`'s lease, in `manager`'s transaction when given. Answers null when the job is no
   * longer this owner's (taken over, or finished), else whether a cancel was requested.
   */
  renew(
    manager: EntityManager | null,
    projectId: string,
    id: string,
    owner: string,
    leaseMs: number,
  ): Promise<{ cancelRequested: boolean } | null> {
    return this.queue.renew(manager, projectId, id, owner, leaseMs);
  }

  remove(manager: EntityManager, projectId: string, id: string): Promise<void> {
    return this.queue.remove(manager, projectId, id);
  }

  /** Deletes the job when no instance claimed it yet; answers whether it did. */
  removeQueued(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
    return this.queue.removeQueued(manager, projectId, id);
  }

  requestCancel(manager: EntityManager, projectId: string, id: string): Promise<void> {
    return this.queue.requestCancel(manager, projectId, id);
  }

  /** Locks up to `limit` running jobs whose lease expired (in `manager`'s transaction), skipping those another instance holds. */
  lockExpired(manager: EntityManager, limit: number): Promise<{ projectId: string; id: string }[]> {
    return this.queue.lockExpired(manager, 'response', limit);
  }
}
