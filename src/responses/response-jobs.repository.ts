import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import type { ProjectPrincipal } from '../auth/principal';

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

/** UPDATE/DELETE ... RETURNING answer `[rows, count]` through TypeORM's query(); SELECT answers rows. */
const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? (result[0] as T[])
    : (result as T[]);

/**
 * The response job table: a row per response being run (streamed or background), held by one
 * instance's lease. Instances claim queued rows with `FOR UPDATE SKIP LOCKED`, renew their lease
 * with every stored batch (and a heartbeat), and take over rows whose lease expired. Claiming and
 * takeover scan across projects by nature (the queue is the instance's, not a project's).
 */
@Injectable()
export class ResponseJobsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
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
    await manager.query(
      `INSERT INTO response_jobs (project_id, id, state, background, request, lease_owner, lease_expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6::text IS NULL THEN NULL ELSE now() + $7 * interval '1 millisecond' END, now())`,
      [job.projectId, job.id, job.owner ? 'running' : 'queued', job.background, JSON.stringify(job.request), job.owner, job.leaseMs],
    );
  }

  /** Claims up to `limit` queued jobs, oldest first, for `owner`. */
  async claim(owner: string, leaseMs: number, limit: number): Promise<ClaimedJob[]> {
    const rows = rowsOf<{ project_id: string; id: string; background: boolean; request: StoredRequest }>(
      await this.dataSource.query(
        `UPDATE response_jobs SET state = 'running', lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond', attempts = attempts + 1
          WHERE (project_id, id) IN (
            SELECT project_id, id FROM response_jobs WHERE state = 'queued' ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
          RETURNING project_id, id, background, request`,
        [owner, leaseMs, limit],
      ),
    );
    return rows.map((row) => ({
      projectId: row.project_id,
      id: row.id,
      background: row.background,
      request: typeof row.request === 'string' ? JSON.parse(row.request) : row.request,
    }));
  }

  /**
   * Extends `owner`'s lease, in `manager`'s transaction when given. Answers null when the job is no
   * longer this owner's (taken over, or finished), else whether a cancel was requested.
   */
  async renew(
    manager: EntityManager | null,
    projectId: string,
    id: string,
    owner: string,
    leaseMs: number,
  ): Promise<{ cancelRequested: boolean } | null> {
    const rows = rowsOf<{ cancel_requested: boolean }>(
      await (manager ?? this.dataSource.manager).query(
        `UPDATE response_jobs SET lease_expires_at = now() + $4 * interval '1 millisecond'
          WHERE project_id = $1 AND id = $2 AND lease_owner = $3 RETURNING cancel_requested`,
        [projectId, id, owner, leaseMs],
      ),
    );
    return rows.length ? { cancelRequested: rows[0].cancel_requested } : null;
  }

  async remove(manager: EntityManager, projectId: string, id: string): Promise<void> {
    await manager.query('DELETE FROM response_jobs WHERE project_id = $1 AND id = $2', [projectId, id]);
  }

  /** Deletes the job when no instance claimed it yet; answers whether it did. */
  async removeQueued(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
    const rows = rowsOf(
      await manager.query(`DELETE FROM response_jobs WHERE project_id = $1 AND id = $2 AND state = 'queued' RETURNING id`, [projectId, id]),
    );
    return rows.length > 0;
  }

  async requestCancel(manager: EntityManager, projectId: string, id: string): Promise<void> {
    await manager.query('UPDATE response_jobs SET cancel_requested = true WHERE project_id = $1 AND id = $2', [projectId, id]);
  }

  /** Locks up to `limit` running jobs whose lease expired (in `manager`'s transaction), skipping those another instance holds. */
  async lockExpired(manager: EntityManager, limit: number): Promise<{ projectId: string; id: string }[]> {
    const rows: { project_id: string; id: string }[] = await manager.query(
      `SELECT project_id, id FROM response_jobs WHERE state = 'running' AND lease_expires_at < now()
        ORDER BY lease_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map((row) => ({ projectId: row.project_id, id: row.id }));
  }
}
