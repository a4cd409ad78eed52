import { HistoryTurn, KnownHistory } from './history-turns';

/** A thread's history as an instance holds it: every live turn through lastSeq, at version. */
export interface CachedHistory extends KnownHistory {
  turns: readonly HistoryTurn[];
  /** What the turns take in memory, estimated (turnBytes): what the budget counts. */
  bytes: number;
}

/** Per entry: its key, its arrays and its bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 256;
/** An entry unused this long goes: a conversation's next turn usually comes within seconds. */
export const HISTORY_IDLE_MS = 60_000;

interface Held extends CachedHistory {
  usedAt: number;
}

/**
 * Thread histories an instance read, kept between an assistant's turns (docs/decisions.md, "Thread
 * histories are cached, checked on every read"), least recently used first out once their
 * estimated size passes the budget, and each after HISTORY_IDLE_MS unused. Never trusted on its
 * own: a read sends what it holds (lastSeq, version) and gets back only the turns after it, or the
 * whole history when the thread's version moved (a turn deleted, a compaction), or nothing when
 * the thread is gone. So it has no staleness and needs no invalidation between instances. The
 * turns are frozen: every request holding one shares it.
 */
export class HistoryCache {
  /** Least recently used first. */
  private readonly entries = new Map<string, Held>();
  private bytes = 0;

  constructor(
    private readonly budgetBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Memory held, estimated (turnBytes), in bytes. */
  get size(): number {
    return this.bytes;
  }

  /** Threads held. */
  get threads(): number {
    return this.entries.size;
  }

  get(projectId: string, threadId: string): CachedHistory | undefined {
    const now = this.now();
    this.dropIdle(now);
    const key = keyOf(projectId, threadId);
    const entry = this.entries.get(key);
    if (entry) {
      entry.usedAt = now;
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
    this.entries.set(keyOf(projectId, threadId), { ...entry, usedAt: this.now() });
    this.bytes += cost;
    for (const [key, oldest] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.drop(key, oldest);
    }
  }

  delete(projectId: string, threadId: string): void {
    const key = keyOf(projectId, threadId);
    const entry = this.entries.get(key);
    if (entry) this.drop(key, entry);
  }

  private dropIdle(now: number): void {
    for (const [key, oldest] of this.entries) {
      if (oldest.usedAt > now - HISTORY_IDLE_MS) break;
      this.drop(key, oldest);
    }
  }

  private drop(key: string, entry: Held): void {
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
