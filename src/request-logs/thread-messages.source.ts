import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { ThreadRange } from './thread-range';

/**
 * The thread messages a request log refers to, read by key from thread_messages: the history an
 * assistant's log keeps as a range instead of a copy (thread-range.ts), and the ids of the messages
 * the call appended. Two plain reads, no entity: the messages module owns the table and its
 * writes, and depends on this module (a message's log summary), so this one reads it here, as
 * ThreadsRepository marks a deleted thread's rows there.
 */
@Injectable()
export class ThreadMessagesSource {
  constructor(private readonly dataSource: DataSource) {}

  /** The messages of the range's turns, flattened in sequence order (deleted-since turns included). */
  async messagesInRange(projectId: string, range: ThreadRange): Promise<unknown[]> {
    const skip = new Set(range.skip);
    const turns: { seq: number; content: unknown[] }[] = await this.dataSource.query(
      'SELECT seq, content FROM thread_messages WHERE project_id = $1 AND thread_id = $2 AND seq BETWEEN $3 AND $4 ORDER BY seq',
      [projectId, range.threadId, range.fromSeq, range.toSeq],
    );
    return turns.filter((turn) => !skip.has(Number(turn.seq))).flatMap((turn) => turn.content);
  }

  /** The ids of the thread messages a call appended, in sequence order. */
  async messageIdsOfLog(projectId: string, threadId: string, requestLogId: string): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      'SELECT id FROM thread_messages WHERE project_id = $1 AND thread_id = $2 AND request_log_id = $3 ORDER BY seq',
      [projectId, threadId, requestLogId],
    );
    return rows.map((row) => row.id);
  }
}
