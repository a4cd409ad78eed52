import { HistoryTurn, KnownHistory } from './messages.repository';

/** A thread's history as an instance holds it: every live turn through lastSeq, at version. */
export interface CachedHistory extends KnownHistory {
  turns: readonly HistoryTurn[];
  /** The turns' content as stored (pg_column_size): what the budget counts. */
  bytes: number;
}

/** Per entry, beside its content: the key, the arrays and the turn objects. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * Thread histories an instance read, kept between an assistant's turns (docs/decisions.md, "Thread
 * histories are cached, checked on every read"), least recently used first out once their stored
 * size passes the budget. Never trusted on its own: a read sends what it holds (lastSeq, version)
 * and gets back only the turns after it, or the whole history when the thread's version moved
 * (a turn deleted, a compaction), or nothing when the thread is gone. So it has no staleness and
 * needs no invalidation between instances. The turns are frozen: every request holding one
 * shares it.
 */
export class HistoryCache {
  private readonly entries = new Map<string, CachedHistory>();
  private bytes = 0;

  constructor(private readonly budgetBytes: number) {}

  /** Bytes held, for tests. */
  get size(): number {
    return this.bytes;
  }

  get(projectId: string, threadId: string): CachedHistory | undefined {
    const key = keyOf(projectId, threadId);
    const entry = this.entries.get(key);
    if (entry) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Keeps `entry` (its new turns frozen here) unless it alone is over the budget. */
  set(projectId: string, threadId: string, entry: CachedHistory, newTurns: readonly HistoryTurn[]): void {
    this.delete(projectId, threadId);
    const cost = entry.bytes + ENTRY_OVERHEAD_BYTES;
    if (cost > this.budgetBytes) return;
    for (const turn of newTurns) deepFreeze(turn);
    this.entries.set(keyOf(projectId, threadId), entry);
    this.bytes += cost;
    for (const [key, oldest] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(key);
      this.bytes -= oldest.bytes + ENTRY_OVERHEAD_BYTES;
    }
  }

  delete(projectId: string, threadId: string): void {
    const key = keyOf(projectId, threadId);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes + ENTRY_OVERHEAD_BYTES;
  }
}

const keyOf = (projectId: string, threadId: string) => `${projectId}/${threadId}`;

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
