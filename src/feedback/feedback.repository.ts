import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import type { ResolvedTarget } from './feedback-targets';

export type ValueKind = 'number' | 'boolean' | 'category';

export interface FeedbackRow {
  id: string;
  target_type: ResolvedTarget['type'];
  target_id: string;
  log_id: string | null;
  thread_id: string | null;
  response_id: string | null;
  prompt_slug: string | null;
  environment: string | null;
  version: number | null;
  name: string;
  value_kind: ValueKind;
  /** numeric, as PostgreSQL's text (exact): a number, or 1/0 for a boolean. */
  value_number: string | null;
  value_text: string | null;
  comment: string | null;
  source: string;
  created_at: Date;
  updated_at: Date;
}

/** What a submission writes; the target's fields come from its resolution. */
export interface FeedbackWrite {
  id: string;
  target: ResolvedTarget;
  name: string;
  kind: ValueKind;
  number: string | null;
  text: string | null;
  comment: string | null;
  source: string;
}

export interface FeedbackFilters {
  logId?: string;
  threadId?: string;
  responseId?: string;
  name?: string;
  prompt?: string;
  environment?: string;
  version?: number;
}

const COLUMNS = `id, target_type, target_id, log_id, thread_id, response_id, prompt_slug, environment, version, name, value_kind,
  value_number::text AS value_number, value_text, comment, source, created_at, updated_at`;

/** UPDATE … RETURNING answers [rows, count] through TypeORM's postgres driver, SELECT and INSERT the rows. */
const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? (result[0] as T[])
    : (result as T[]);

/** Feedback rows; every query scoped by project. */
@Injectable()
export class FeedbackRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores the feedback of (target, name, source), replacing the one stored before: answers the
   * row and the one it replaced (locked until the transaction ends), for the rollup's delta. Not
   * one upsert reading `xmax`: PostgreSQL refuses system columns of a partitioned table
   * (SCHEMA_MODE=partitioned). An insert that loses a race to a concurrent one locks and updates
   * that row on the next round.
   */
  async upsert(
    manager: EntityManager,
    projectId: string,
    write: FeedbackWrite,
  ): Promise<{ row: FeedbackRow; previous: FeedbackRow | null }> {
    const { target } = write;
    const key = [projectId, target.type, target.id, write.name, write.source];
    const resolved = [target.logId, target.threadId, target.responseId, target.promptSlug, target.environment, target.version];
    const value = [write.kind, write.number, write.text, write.comment];
    for (;;) {
      const [previous] = rowsOf<FeedbackRow>(
        await manager.query(
          `SELECT ${COLUMNS} FROM feedback
            WHERE project_id = $1 AND target_type = $2 AND target_id = $3 AND name = $4 AND source = $5 FOR UPDATE`,
          key,
        ),
      );
      if (previous) {
        const [row] = rowsOf<FeedbackRow>(
          await manager.query(
            `UPDATE feedback SET log_id = $3, thread_id = $4, response_id = $5, prompt_slug = $6, environment = $7, version = $8,
                    value_kind = $9, value_number = $10::numeric, value_text = $11, comment = $12, updated_at = now()
              WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
            [projectId, previous.id, ...resolved, ...value],
          ),
        );
        return { row, previous };
      }
      const inserted = rowsOf<FeedbackRow>(
        await manager.query(
          `INSERT INTO feedback (project_id, target_type, target_id, name, source, id, log_id, thread_id, response_id, prompt_slug,
                                 environment, version, value_kind, value_number, value_text, comment, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::numeric, $15, $16, now(), now())
           ON CONFLICT (project_id, target_type, target_id, name, source) DO NOTHING RETURNING ${COLUMNS}`,
          [...key, write.id, ...resolved, ...value],
        ),
      );
      if (inserted.length) return { row: inserted[0], previous: null };
    }
  }

  /** Keyset page by id (time-ordered), newest first. */
  list(projectId: string, filters: FeedbackFilters, afterId: string | undefined, take: number): Promise<FeedbackRow[]> {
    const where = ['project_id = $1'];
    const parameters: unknown[] = [projectId];
    const add = (column: string, value: unknown) => {
      if (value === undefined) return;
      parameters.push(value);
      where.push(`${column} = $${parameters.length}`);
    };
    add('log_id', filters.logId);
    add('thread_id', filters.threadId);
    add('response_id', filters.responseId);
    add('name', filters.name);
    add('prompt_slug', filters.prompt);
    add('environment', filters.environment);
    add('version', filters.version);
    if (afterId !== undefined) {
      parameters.push(afterId);
      where.push(`id < $${parameters.length}`);
    }
    parameters.push(take);
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM feedback WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${parameters.length}`,
      parameters,
    );
  }
}
