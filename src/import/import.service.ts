import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { badRequest, isUniqueViolation } from '../common/errors';
import { Metadata } from '../common/validation';
import { MessageStore } from '../messages/message-store';
import { ThreadStore } from '../threads/thread-store';
import { parseAssistantsExport } from './assistants-export.parser';
import { chatMessageOf, ExportedMessage, ExportedThread } from './assistants-export.schema';
import { derivedId } from './derived-id';

export const INVALID_IMPORT = 'Invalid import';

export interface ImportedThread {
  source_id: string;
  thread_id: string;
  /** `created`: new thread; `existing`: imported before (only new messages appended); `deleted`: imported before and deleted since, left alone. */
  action: 'created' | 'existing' | 'deleted';
  messages_created: number;
  messages_existing: number;
}

export interface ImportSummary {
  threads_created: number;
  messages_created: number;
  threads: ImportedThread[];
}

/**
 * Imports an Assistants API export (thread and message objects) into a project's threads,
 * idempotently: ids are derived from the project and the original ids (derived-id.ts), so a second
 * import of the same export finds everything and creates nothing. One transaction per thread.
 * See docs/import.md.
 */
@Injectable()
export class ImportService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly threads: ThreadStore,
    private readonly messages: MessageStore,
  ) {}

  async importAssistantsThreads(projectId: string, records: unknown[]): Promise<ImportSummary> {
    const parsed = parseAssistantsExport(records);
    if (!parsed.ok) throw badRequest(INVALID_IMPORT, parsed.problems);
    const threads: ImportedThread[] = [];
    for (const { thread, messages } of parsed.value.threads) {
      // Two imports racing on a new thread: the loser's INSERT fails; its retry finds the thread.
      threads.push(
        await this.importThread(projectId, thread, messages).catch((err) => {
          if (!isUniqueViolation(err)) throw err;
          return this.importThread(projectId, thread, messages);
        }),
      );
    }
    return {
      threads_created: threads.filter((t) => t.action === 'created').length,
      messages_created: threads.reduce((sum, t) => sum + t.messages_created, 0),
      threads,
    };
  }

  private importThread(projectId: string, thread: ExportedThread, messages: ExportedMessage[]): Promise<ImportedThread> {
    const threadId = derivedId(projectId, thread.id, thread.created_at);
    const result = (action: ImportedThread['action'], created: number): ImportedThread => ({
      source_id: thread.id,
      thread_id: threadId,
      action,
      messages_created: created,
      messages_existing: messages.length - created,
    });
    return this.dataSource.transaction(async (manager) => {
      const state = await this.threads.lockState(manager, projectId, threadId);
      if (state === 'deleted') return { ...result('deleted', 0), messages_existing: 0 };
      if (state === 'missing') {
        await this.threads.insert(
          projectId,
          (thread.metadata ?? {}) as Metadata,
          {},
          manager,
          threadId,
          new Date(thread.created_at * 1000),
        );
      }
      const ids = messages.map((m) => derivedId(projectId, m.id, m.created_at));
      const existing = await this.messages.existingIds(manager, projectId, ids);
      const turns = messages
        .map((m, i) => ({
          id: ids[i],
          createdAt: new Date(m.created_at * 1000),
          content: [chatMessageOf(m)],
          metadata: (m.metadata ?? {}) as Metadata,
        }))
        .filter((turn) => !existing.has(turn.id));
      if (turns.length > 0) await this.messages.appendTurns(manager, projectId, threadId, turns);
      return result(state === 'missing' ? 'created' : 'existing', turns.length);
    });
  }
}
