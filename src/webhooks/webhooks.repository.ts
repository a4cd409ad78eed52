import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: Date;
}

export interface DueDelivery {
  projectId: string;
  id: string;
  webhookId: string;
  payload: string;
  attempts: number;
}

const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? (result[0] as T[])
    : (result as T[]);
const toRow = (r: { id: string; url: string; events: string[] | string; secret: string; created_at: Date }): WebhookRow => ({
  id: r.id,
  url: r.url,
  events: typeof r.events === 'string' ? JSON.parse(r.events) : r.events,
  secret: r.secret,
  createdAt: new Date(r.created_at),
});

/** Webhooks and their deliveries, scoped by project; the delivery claim scans due rows across projects. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(projectId: string, row: WebhookRow, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query('INSERT INTO webhooks (project_id, id, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      projectId,
      row.id,
      row.url,
      JSON.stringify(row.events),
      row.secret,
      row.createdAt,
    ]);
  }

  async list(projectId: string, manager: EntityManager = this.dataSource.manager): Promise<WebhookRow[]> {
    return (
      await manager.query('SELECT id, url, events, secret, created_at FROM webhooks WHERE project_id = $1 ORDER BY id', [projectId])
    ).map(toRow);
  }

  async find(projectId: string, id: string): Promise<WebhookRow | null> {
    const [row] = await this.dataSource.query(
      'SELECT id, url, events, secret, created_at FROM webhooks WHERE project_id = $1 AND id = $2',
      [projectId, id],
    );
    return row ? toRow(row) : null;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return (
      rowsOf(await this.dataSource.query('DELETE FROM webhooks WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id])).length > 0
    );
  }

  async insertDeliveries(
    manager: EntityManager,
    projectId: string,
    rows: { id: string; webhookId: string; type: string; payload: string }[],
  ): Promise<void> {
    for (const row of rows) {
      await manager.query(
        `INSERT INTO webhook_deliveries (project_id, id, webhook_id, type, payload, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, now(), now())`,
        [projectId, row.id, row.webhookId, row.type, row.payload],
      );
    }
  }

  /**
   * Claims due deliveries fairly: up to `perProject` of each of up to `projects` projects with
   * something due, oldest first, skipping the projects this instance is still sending for (`busy`).
   * Each is pushed `leaseSeconds` ahead (a crash mid-send retries it then).
   */
  async claimDue(projects: number, perProject: number, leaseSeconds: number, busy: string[]): Promise<DueDelivery[]> {
    const rows = rowsOf<{ project_id: string; id: string; webhook_id: string; payload: string; attempts: number }>(
      await this.dataSource.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() + $3 * interval '1 second', attempts = attempts + 1
          WHERE (project_id, id) IN (
            SELECT d.project_id, d.id
              FROM (SELECT project_id FROM webhook_deliveries
                     WHERE state = 'pending' AND next_attempt_at <= now() AND project_id <> ALL ($4::uuid[])
                     GROUP BY project_id ORDER BY min(next_attempt_at) LIMIT $1) p
             CROSS JOIN LATERAL (
               SELECT w.project_id, w.id FROM webhook_deliveries w
                WHERE w.project_id = p.project_id AND w.state = 'pending' AND w.next_attempt_at <= now()
                ORDER BY w.next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) d)
          RETURNING project_id, id, webhook_id, payload, attempts`,
        [projects, perProject, leaseSeconds, busy],
      ),
    );
    return rows.map((r) => ({ projectId: r.project_id, id: r.id, webhookId: r.webhook_id, payload: r.payload, attempts: r.attempts }));
  }

  async delivered(d: DueDelivery, status: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET state = 'delivered', last_status = $3, last_error = NULL, delivered_at = now() WHERE project_id = $1 AND id = $2`,
      [d.projectId, d.id, status],
    );
  }

  /** A failed attempt: retried after `retryInSeconds`, or given up (`failed`) when null. */
  async attemptFailed(d: DueDelivery, status: number | null, error: string, retryInSeconds: number | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET last_status = $3, last_error = $4,
              state = CASE WHEN $5::int IS NULL THEN 'failed' ELSE 'pending' END,
              next_attempt_at = CASE WHEN $5::int IS NULL THEN next_attempt_at ELSE now() + $5 * interval '1 second' END
        WHERE project_id = $1 AND id = $2`,
      [d.projectId, d.id, status, error.slice(0, 500), retryInSeconds],
    );
  }

  /** A send cut by this instance's shutdown: the claim is given back uncounted, due at once for another instance. */
  async releaseClaim(d: DueDelivery): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET attempts = attempts - 1, next_attempt_at = now()
        WHERE project_id = $1 AND id = $2 AND state = 'pending' AND attempts = $3`,
      [d.projectId, d.id, d.attempts],
    );
  }
}
