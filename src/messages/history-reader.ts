import { Injectable, Optional } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { GroupCommit } from '../database/group-commit';
import { MetricsService } from '../metrics/metrics.service';
import { HistoryCache } from './history-cache';
import { HistoryTurn } from './history-turns';
import { MessagesRepository } from './messages.repository';

/** Most threads in one query. */
const MAX_BATCH = 64;

/**
 * Threads' histories for the invokes that continue them, read together (docs/decisions.md,
 * "Writes are group-committed": the same batching, for the read before the call). Concurrent
 * invokes' reads go in one query: one round trip for the batch instead of one per call. A read
 * that finds no query running goes at once; at most `DB_POOL_SIZE / 4` queries run at a time (one
 * on PGlite), and a batch takes the waiting projects in turn. What this instance read of a thread
 * before is kept (HistoryCache): the query then reads only the turns after it, unless the thread's
 * history changed otherwise since.
 */
@Injectable()
export class HistoryReader {
  private readonly batches: GroupCommit<{ projectId: string; threadId: string }, readonly HistoryTurn[] | null>;
  private readonly cache: HistoryCache;
  /** Histories read since the instance started: only what was new, or whole (docs/operations.md, "Metrics"). */
  private readonly reads = { newOnly: 0, whole: 0 };

  constructor(
    private readonly messages: MessagesRepository,
    config: AppConfig,
    @Optional() metrics?: MetricsService,
  ) {
    this.cache = new HistoryCache(config.historyCacheBytes);
    metrics?.gauge(
      'parley_history_cache_bytes',
      'Memory (estimated) of the thread histories this instance keeps between turns (HISTORY_CACHE_MB)',
      [],
      (gauge) => gauge.set(this.cache.size),
    );
    metrics?.gauge('parley_history_cache_threads', 'Threads whose history this instance keeps between turns', [], (gauge) =>
      gauge.set(this.cache.threads),
    );
    metrics?.gauge(
      'parley_history_reads',
      'Thread histories read since the instance started: new_only (the turns after what it kept) or whole',
      ['read'],
      (gauge) => {
        gauge.set({ read: 'new_only' }, this.reads.newOnly);
        gauge.set({ read: 'whole' }, this.reads.whole);
      },
    );
    this.batches = new GroupCommit({
      maxInFlight: config.groupCommitInFlight,
      gather: config.groupCommitGather,
      maxBatch: MAX_BATCH,
      flush: async (threads) => (await this.readBatch(threads)).map((value) => ({ ok: true as const, value })),
    });
  }

  /** Queries made and histories read, for tests. */
  get stats(): { flushes: number; items: number } {
    return this.batches.stats;
  }

  /** The live turns of a live thread, or null when it is missing or deleted (MessagesRepository.liveHistory). */
  read(projectId: string, threadId: string): Promise<readonly HistoryTurn[] | null> {
    return this.batches.submit(projectId, { projectId, threadId });
  }

  private async readBatch(threads: { projectId: string; threadId: string }[]): Promise<(readonly HistoryTurn[] | null)[]> {
    const held = threads.map((t) => this.cache.get(t.projectId, t.threadId));
    const reads = await this.messages.liveHistories(threads.map((t, i) => ({ ...t, ...(held[i] ? { known: held[i] } : {}) })));
    return reads.map((read, i) => {
      const { projectId, threadId } = threads[i];
      if (!read) {
        this.cache.delete(projectId, threadId);
        return null;
      }
      if (read.since) this.reads.newOnly++;
      else this.reads.whole++;
      const before = read.since ? held[i]!.turns : [];
      // A new array when anything was added: requests still holding the old one keep what they read.
      const turns = read.turns.length === 0 ? before : Object.freeze(before.concat(read.turns));
      if (read.at) {
        this.cache.set(projectId, threadId, { ...read.at, bytes: (read.since ? held[i]!.bytes : 0) + read.at.bytes, turns }, read.turns);
      } else {
        this.cache.delete(projectId, threadId);
      }
      return turns;
    });
  }
}
