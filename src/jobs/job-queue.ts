import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/**
 * What runs a job: a background (or streamed) response, an experiment run (docs/evals.md), or the
 * live graders' scoring of one call (docs/experiments.md, "Live graders").
 */
export type JobKind = 'response' | 'eval_run' | 'live_grade';

export interface ClaimedRow<R> {
  projectId: string;
  id: string;
  background: boolean;
  request: R;
  attempts: number;
}

/** UPDATE/DELETE ... RETURNING answer `[rows, count]` through TypeORM's query(); SELECT answers rows. */
export const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? (result[0] as T[])
    : (result as T[]);

/**
 * The one job queue (table `response_jobs`, a `kind` per row): a row per job, held by one
 * instance's lease. Instances claim queued rows of a kind with `FOR UPDATE SKIP LOCKED`, renew
 * their lease while they run them, and deal with rows whose lease expired (their instance died):
 * each kind decides how (a response is failed, an experiment run is queued again). Claiming and
 * takeover scan across projects by nature (the queue is the instance's, not a project's).
 */
@Injectable()
export class JobQueue {
  /** Told when this instance queued a job of the kind without a notification (queuedHere). */
  private readonly local = new Map<JobKind, Set<() => void>>();

  constructor(private readonly dataSource: DataSource) {}

  /** Calls `listener` whenever this instance queues jobs of `kind` (queuedHere); answers the unsubscribe. */
  onQueuedHere(kind: JobKind, listener: () => void): () => void {
    const listeners = this.local.get(kind) ?? new Set();
    this.local.set(kind, listeners.add(listener));
    return () => void listeners.delete(listener);
  }

  /** Wakes this instance's workers of `kind`: jobs queued without a notification, which other instances find by polling. */
  queuedHere(kind: JobKind): void {
    for (const listener of this.local.get(kind) ?? []) listener();
  }

  /**
   * Queues jobs in one statement, outside any transaction; a job whose id is already queued or
   * running is left as it is (the id names the work: queuing it twice does it once).
   */
  async insertQueued(kind: JobKind, jobs: { projectId: string; id: string; request: object }[]): Promise<void> {
    if (jobs.length === 0) return;
    const values = jobs.map((_, i) => `($1, $${i * 3 + 2}, $${i * 3 + 3}, 'queued', false, $${i * 3 + 4}, now())`);
    await this.dataSource.query(
      `INSERT INTO response_jobs (kind, project_id, id, state, background, request, created_at) VALUES ${values.join(', ')}
       ON CONFLICT (project_id, id) DO NOTHING`,
      [kind, ...jobs.flatMap((job) => [job.projectId, job.id, JSON.stringify(job.request)])],
    );
  }

  async insert(
    manager: EntityManager,
    job: { kind: JobKind; projectId: string; id: string; background: boolean; request: object; owner: string | null; leaseMs: number },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO response_jobs (kind, project_id, id, state, background, request, lease_owner, lease_expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7::text IS NULL THEN NULL ELSE now() + $8 * interval '1 millisecond' END, now())`,
      [
        job.kind,
        job.projectId,
        job.id,
        job.owner ? 'running' : 'queued',
        job.background,
        JSON.stringify(job.request),
        job.owner,
        job.leaseMs,
      ],
    );
  }

  /** Claims up to `limit` queued jobs of `kind`, oldest first, for `owner`. */
  async claim<R>(kind: JobKind, owner: string, leaseMs: number, limit: number): Promise<ClaimedRow<R>[]> {
    const rows = rowsOf<{ project_id: string; id: string; background: boolean; request: R | string; attempts: number }>(
      await this.dataSource.query(
        `UPDATE response_jobs SET state = 'running', lease_owner = $2, lease_expires_at = now() + $3 * interval '1 millisecond', attempts = attempts + 1
          WHERE (project_id, id) IN (
            SELECT project_id, id FROM response_jobs WHERE kind = $1 AND state = 'queued' ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED)
          RETURNING project_id, id, background, request, attempts`,
        [kind, owner, leaseMs, limit],
      ),
    );
    return rows.map((row) => ({
      projectId: row.project_id,
      id: row.id,
      background: row.background,
      request: (typeof row.request === 'string' ? JSON.parse(row.request) : row.request) as R,
      attempts: row.attempts,
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

  /** Deletes a finished job if `owner` still holds it (one statement: no transaction needed). */
  async removeHeld(projectId: string, id: string, owner: string): Promise<void> {
    await this.dataSource.query('DELETE FROM response_jobs WHERE project_id = $1 AND id = $2 AND lease_owner = $3', [projectId, id, owner]);
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

  /** Locks up to `limit` running jobs of `kind` whose lease expired (in `manager`'s transaction), skipping those another instance holds. */
  async lockExpired(manager: EntityManager, kind: JobKind, limit: number): Promise<{ projectId: string; id: string; attempts: number }[]> {
    const rows: { project_id: string; id: string; attempts: number }[] = await manager.query(
      `SELECT project_id, id, attempts FROM response_jobs WHERE kind = $1 AND state = 'running' AND lease_expires_at < now()
        ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [kind, limit],
    );
    return rows.map((row) => ({ projectId: row.project_id, id: row.id, attempts: row.attempts }));
  }

  /** Puts a locked job back in the queue for any instance to claim (its work resumes where it stopped). */
  async requeue(manager: EntityManager, projectId: string, id: string): Promise<void> {
    await manager.query(
      `UPDATE response_jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
  }
}
