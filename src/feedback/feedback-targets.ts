import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What a feedback names, resolved from its target: the log that served it, and that log's prompt, environment and version. */
export interface ResolvedTarget {
  type: 'log' | 'thread' | 'response';
  id: string;
  logId: string | null;
  threadId: string | null;
  responseId: string | null;
  promptSlug: string | null;
  environment: string | null;
  version: number | null;
}

interface TargetRow {
  log_id: string | null;
  thread_id: string | null;
  prompt_slug: string | null;
  environment: string | null;
  version: number | null;
}

/**
 * Finds a feedback's target in the caller's project, by keyed reads of the tables that hold it
 * (request_logs, threads and thread_messages, responses), as request-logs/ reads thread messages
 * itself: no module dependency for three lookups. Null when the project has no such live target.
 */
@Injectable()
export class FeedbackTargets {
  constructor(private readonly dataSource: DataSource) {}

  async log(projectId: string, id: string): Promise<ResolvedTarget | null> {
    const [row] = await this.read(
      `SELECT id AS log_id, thread_id, prompt_slug, environment, version FROM request_logs WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
    return row ? { type: 'log', id, responseId: null, ...this.fields(row) } : null;
  }

  /** A live thread, with its latest logged turn's log (none for a thread whose messages were all added directly). */
  async thread(projectId: string, id: string): Promise<ResolvedTarget | null> {
    const [row] = await this.read(
      `SELECT t.id AS thread_id, l.id AS log_id, l.prompt_slug, l.environment, l.version
         FROM threads t
         LEFT JOIN LATERAL (
           SELECT m.request_log_id FROM thread_messages m
            WHERE m.project_id = t.project_id AND m.thread_id = t.id AND m.request_log_id IS NOT NULL AND m.deleted_at IS NULL
            ORDER BY m.seq DESC LIMIT 1) latest ON true
         LEFT JOIN request_logs l ON l.project_id = t.project_id AND l.id = latest.request_log_id
        WHERE t.project_id = $1 AND t.id = $2 AND t.deleted_at IS NULL`,
      [projectId, id],
    );
    return row ? { type: 'thread', id, responseId: null, ...this.fields(row) } : null;
  }

  /** A stored, not deleted response, with the log of the call that made it (`uuid`: the row's id). */
  async response(projectId: string, uuid: string): Promise<ResolvedTarget | null> {
    const [row] = await this.read(
      `SELECT r.conversation_id AS thread_id, l.id AS log_id, l.prompt_slug, l.environment, l.version
         FROM responses r
         LEFT JOIN request_logs l ON l.project_id = r.project_id AND l.id = r.log_id
        WHERE r.project_id = $1 AND r.id = $2 AND r.deleted_at IS NULL`,
      [projectId, uuid],
    );
    return row ? { type: 'response', id: uuid, responseId: uuid, ...this.fields(row) } : null;
  }

  private fields(row: TargetRow): Omit<ResolvedTarget, 'type' | 'id' | 'responseId'> {
    return {
      logId: row.log_id,
      threadId: row.thread_id,
      promptSlug: row.prompt_slug,
      environment: row.environment,
      version: row.version,
    };
  }

  private read(sql: string, parameters: unknown[]): Promise<TargetRow[]> {
    return this.dataSource.query(sql, parameters);
  }
}
