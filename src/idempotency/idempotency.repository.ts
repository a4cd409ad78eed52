import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { IDEMPOTENCY_TTL_HOURS, StoredOutcome } from './idempotency.types';

export interface IdempotencyRow {
  request_hash: string;
  state: 'in_flight' | 'completed';
  outcome: StoredOutcome | null;
}

/** The idempotency_keys table: one row per (project, key). */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Takes the key for a new request: a new row, or one that expired, or an in-flight claim whose
   * lease ran out (its instance died) for the same request. True when taken.
   */
  async claim(projectId: string, key: string, requestHash: string, leaseSeconds: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys AS k (project_id, key, request_hash, state, lease_until, outcome, created_at)
       VALUES ($1, $2, $3, 'in_flight', now() + make_interval(secs => $4), NULL, now())
       ON CONFLICT (project_id, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, state = 'in_flight', lease_until = EXCLUDED.lease_until, outcome = NULL, created_at = now()
        WHERE k.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
           OR (k.state = 'in_flight' AND k.lease_until < now() AND k.request_hash = EXCLUDED.request_hash)
       RETURNING 1`,
      [projectId, key, requestHash, leaseSeconds],
    );
    return rows.length > 0;
  }

  async find(projectId: string, key: string): Promise<IdempotencyRow | null> {
    const rows: IdempotencyRow[] = await this.dataSource.query(
      `SELECT request_hash, state, outcome FROM idempotency_keys WHERE project_id = $1 AND key = $2`,
      [projectId, key],
    );
    return rows[0] ?? null;
  }

  /** Stores the outcome; inside the transaction that made it, when there is one. */
  async complete(projectId: string, key: string, outcome: StoredOutcome, manager?: EntityManager): Promise<void> {
    await (manager ?? this.dataSource.manager).query(
      `UPDATE idempotency_keys SET state = 'completed', outcome = $3 WHERE project_id = $1 AND key = $2`,
      [projectId, key, JSON.stringify(outcome)],
    );
  }

  /** Gives the key back (the request failed in a way a retry may not): the next request with it runs. */
  async release(projectId: string, key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_keys WHERE project_id = $1 AND key = $2 AND state = 'in_flight'`, [
      projectId,
      key,
    ]);
  }

  async deleteExpired(): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`);
  }
}
