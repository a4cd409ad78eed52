import { DataSource } from 'typeorm';

import { isUuid } from '../common/ids';

export interface ServedBy {
  provider: string;
  model: string;
}

/** Threads remembered; the least recently used go first. */
export const MAX_STICKY_THREADS = 50_000;
/**
 * An entry older than this is read again: another instance may have moved the thread on (after a
 * failover) and providers' prompt caches do not outlive it anyway.
 */
export const STICKY_TTL_MS = 10 * 60_000;

interface Entry {
  served: ServedBy | null;
  at: number;
}

/**
 * Which target last served each thread or conversation (docs/routing.md, "Stickiness"). Filled by
 * what this instance served; a thread it never saw is read once from its newest successful
 * request log (the index on (project_id, thread_id, id)), and what was read, found or not, is kept.
 * So a continued thread costs a query only on the first turn an instance serves of it (in each
 * STICKY_TTL_MS), not on every call.
 */
export class StickyThreads {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<ServedBy | null>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly now: () => number = Date.now,
  ) {}

  async get(projectId: string, threadId: string): Promise<ServedBy | undefined> {
    const key = `${projectId}/${threadId}`;
    const entry = this.entries.get(key);
    if (entry && this.now() - entry.at < STICKY_TTL_MS) return entry.served ?? undefined;
    if (!isUuid(threadId)) return undefined;
    let load = this.loading.get(key);
    if (!load) {
      load = this.read(projectId, threadId)
        .then((served) => {
          // Unless a turn was served meanwhile: that is newer than what the log said.
          if (!this.entries.has(key) || this.entries.get(key) === entry) this.remember(key, served);
          return served;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, load);
    }
    // No stickiness is better than a failed call: a read that fails routes as if the thread were new.
    return (await load.catch(() => null)) ?? undefined;
  }

  served(projectId: string, threadId: string, served: ServedBy): void {
    this.remember(`${projectId}/${threadId}`, { provider: served.provider, model: served.model });
  }

  /** Threads held (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private remember(key: string, served: ServedBy | null): void {
    // Re-inserted so the map's order is least recently used first.
    this.entries.delete(key);
    if (this.entries.size >= MAX_STICKY_THREADS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { served, at: this.now() });
  }

  private async read(projectId: string, threadId: string): Promise<ServedBy | null> {
    const [row]: { provider_name: string | null; model: string | null }[] = await this.dataSource.query(
      `SELECT provider_name, model FROM request_logs
       WHERE project_id = $1 AND thread_id = $2 AND status < 400 AND provider_name IS NOT NULL AND model IS NOT NULL
       ORDER BY id DESC LIMIT 1`,
      [projectId, threadId],
    );
    return row ? { provider: row.provider_name!, model: row.model! } : null;
  }
}
