import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { GroupCommit } from '../database/group-commit';
import { HistoryTurn, MessagesRepository } from './messages.repository';

/** Most threads in one query. */
const MAX_BATCH = 64;

/**
 * Threads' histories for the invokes that continue them, read together (docs/decisions.md,
 * "Writes are group-committed": the same batching, for the read before the call). Concurrent
 * invokes' reads go in one query: one round trip for the batch instead of one per call. A read
 * that finds no query running goes at once; at most `DB_POOL_SIZE / 4` queries run at a time (one
 * on PGlite), and a batch takes the waiting projects in turn.
 */
@Injectable()
export class HistoryReader {
  private readonly batches: GroupCommit<{ projectId: string; threadId: string }, HistoryTurn[] | null>;

  constructor(messages: MessagesRepository, config: AppConfig) {
    this.batches = new GroupCommit({
      maxInFlight: config.groupCommitInFlight,
      maxBatch: MAX_BATCH,
      flush: async (threads) => (await messages.liveHistories(threads)).map((value) => ({ ok: true as const, value })),
    });
  }

  /** Queries made and histories read, for tests. */
  get stats(): { flushes: number; items: number } {
    return this.batches.stats;
  }

  /** The live turns of a live thread, or null when it is missing or deleted (MessagesRepository.liveHistory). */
  read(projectId: string, threadId: string): Promise<HistoryTurn[] | null> {
    return this.batches.submit(projectId, { projectId, threadId });
  }
}
