import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { newId } from '../common/ids';
import { ChangeNotifier } from '../database/changes';

/** One stored stream event: its sequence number and its JSON text, as sent. */
export interface StoredEvent {
  sequence: number;
  json: string;
}

/** The event types that end a response's stream. */
export const TERMINAL_EVENTS = new Set(['response.completed', 'response.failed', 'response.incomplete', 'response.cancelled']);

/**
 * The stream events of streamed and background responses, stored in batches: one row per flush
 * holding consecutive events (one JSON text per line), not one row per token. Every append
 * publishes a `response-events` notification in its transaction, so followers on any instance
 * read the batch once it is committed (docs/openai-conversations.md, "Background responses and resumable streams").
 */
@Injectable()
export class ResponseEventStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ChangeNotifier,
  ) {}

  /** Appends `events` (already numbered, consecutive) in `manager`'s transaction. */
  async append(manager: EntityManager, projectId: string, responseId: string, events: { sequence_number: number }[]): Promise<void> {
    if (events.length === 0) return;
    const first = events[0].sequence_number;
    await manager.query(
      `INSERT INTO response_events (project_id, id, response_id, first_sequence, last_sequence, events, created_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
      [projectId, newId(), responseId, first, first + events.length - 1, events.map((event) => JSON.stringify(event)).join('\n')],
    );
    await this.changes.publish({ kind: 'response-events', responseId }, manager);
  }

  /** The highest stored sequence number of a response, -1 when none. */
  async lastSequence(manager: EntityManager, projectId: string, responseId: string): Promise<number> {
    const [row] = await manager.query('SELECT max(last_sequence) AS last FROM response_events WHERE project_id = $1 AND response_id = $2', [
      projectId,
      responseId,
    ]);
    return row?.last === null || row?.last === undefined ? -1 : Number(row.last);
  }

  /** The stored events after sequence number `after`, in order (at most about `limit` batches' worth). */
  async after(projectId: string, responseId: string, after: number, limit = 200): Promise<StoredEvent[]> {
    const rows: { first_sequence: number; events: string }[] = await this.dataSource.query(
      `SELECT first_sequence, events FROM response_events
        WHERE project_id = $1 AND response_id = $2 AND last_sequence > $3
        ORDER BY first_sequence LIMIT $4`,
      [projectId, responseId, after, limit],
    );
    const events: StoredEvent[] = [];
    for (const row of rows) {
      row.events.split('\n').forEach((json, index) => {
        const sequence = Number(row.first_sequence) + index;
        if (sequence > after) events.push({ sequence, json });
      });
    }
    return events;
  }

  /** Whether any event of this response is stored (a response that never streamed has none). */
  async has(projectId: string, responseId: string): Promise<boolean> {
    const rows = await this.dataSource.query('SELECT 1 FROM response_events WHERE project_id = $1 AND response_id = $2 LIMIT 1', [
      projectId,
      responseId,
    ]);
    return rows.length > 0;
  }

  /**
   * Deletes at most `limit` batches of responses that finished before `cutoff` (retention,
   * docs/openai-conversations.md); returns how many. Batches are older than their response's end.
   */
  async prune(cutoff: Date, limit: number): Promise<number> {
    const rows: unknown[] = await this.dataSource.query(
      `DELETE FROM response_events e
        WHERE (e.project_id, e.id) IN (
          SELECT b.project_id, b.id FROM response_events b
            JOIN responses r ON r.project_id = b.project_id AND r.id = b.response_id
           WHERE b.created_at < $1 AND r.finished_at < $1
           LIMIT $2)
        RETURNING 1`,
      [cutoff, limit],
    );
    return rows.length;
  }
}
