import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { WebhooksService } from '../webhooks/webhooks.service';
import { responseIdOf } from './responses.schema';

/** A response's lifecycle (docs/openai-conversations.md, "Statuses"). */
export type StoredStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'incomplete' | 'cancelled';
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'incomplete', 'cancelled']);

export interface PendingRow {
  projectId: string;
  id: string;
  previousResponseId: string | null;
  conversationId: string | null;
  input: unknown[];
  body: Record<string, unknown>;
  status: 'queued' | 'in_progress';
  background: boolean;
}

const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? (result[0] as T[])
    : (result as T[]);

/**
 * The status side of stored responses: a streamed or background response's row exists from its
 * start (queued or in_progress) and moves to a final status exactly once, guarded by its current
 * status, so a cancel and a completion racing each other cannot both win.
 */
@Injectable()
export class ResponseStatesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly webhooks: WebhooksService,
  ) {}

  async insertPending(manager: EntityManager, row: PendingRow): Promise<void> {
    await manager.query(
      `INSERT INTO responses (project_id, id, previous_response_id, conversation_id, input, output, body, created_at, status, background)
       VALUES ($1, $2, $3, $4, $5, '[]', $6, now(), $7, $8)`,
      [
        row.projectId,
        row.id,
        row.previousResponseId,
        row.conversationId,
        JSON.stringify(row.input),
        JSON.stringify(row.body),
        row.status,
        row.background,
      ],
    );
  }

  /** queued → in_progress; false when it is no longer queued (cancelled meanwhile). */
  async start(projectId: string, id: string): Promise<boolean> {
    const rows = rowsOf(
      await this.dataSource.query(
        `UPDATE responses SET status = 'in_progress', body = jsonb_set(body, '{status}', '"in_progress"')
          WHERE project_id = $1 AND id = $2 AND status = 'queued' RETURNING id`,
        [projectId, id],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Moves the response from `from` to its final status; false when it was not in `from` any more.
   * A background response's end is announced to the project's webhooks in the same transaction.
   * `logId`: the request log of the call that completed it.
   */
  async finish(
    manager: EntityManager,
    projectId: string,
    id: string,
    from: StoredStatus,
    to: StoredStatus,
    body: Record<string, unknown>,
    output?: unknown[],
    logId?: string,
  ): Promise<boolean> {
    const rows = rowsOf<{ background: boolean }>(
      await manager.query(
        `UPDATE responses SET status = $4, body = $5, output = COALESCE($6::jsonb, output), finished_at = now(), log_id = COALESCE($7::uuid, log_id)
          WHERE project_id = $1 AND id = $2 AND status = $3 RETURNING background`,
        [projectId, id, from, to, JSON.stringify(body), output ? JSON.stringify(output) : null, logId ?? null],
      ),
    );
    if (rows[0]?.background) await this.webhooks.enqueue(manager, projectId, `response.${to}`, { id: responseIdOf(id) });
    return rows.length > 0;
  }

  /** The row's status, locked until `manager`'s transaction ends; null when not found (or deleted). */
  async lock(
    manager: EntityManager,
    projectId: string,
    id: string,
  ): Promise<{ status: StoredStatus; background: boolean; body: Record<string, unknown> } | null> {
    const [row] = await manager.query(
      'SELECT status, background, body FROM responses WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE',
      [projectId, id],
    );
    return row
      ? { status: row.status, background: row.background, body: typeof row.body === 'string' ? JSON.parse(row.body) : row.body }
      : null;
  }

  /** Marks a queued or running background response cancelled (its final events follow). */
  async markCancelled(manager: EntityManager, projectId: string, id: string): Promise<void> {
    await manager.query(
      `UPDATE responses SET status = 'cancelled', body = jsonb_set(body, '{status}', '"cancelled"') WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
  }

  /** Whether the response's end is stored (a cancelled one is final at once, its end follows from its runner). */
  async isFinished(projectId: string, id: string): Promise<boolean> {
    const [row] = await this.dataSource.query('SELECT finished_at FROM responses WHERE project_id = $1 AND id = $2', [projectId, id]);
    return !row || row.finished_at !== null;
  }
}
