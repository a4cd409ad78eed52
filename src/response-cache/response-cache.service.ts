import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';

import { startPeriodic, stopPeriodic } from '../common/periodic';
import type { ChatCompletion, TokenCounts } from '../providers';

/** A stored answer's completion JSON above this many bytes is not stored (docs/routing.md, "Response cache"). */
export const MAX_ENTRY_BYTES = 256 * 1024;

const PERIODIC = 'response-cache-sweep';
const SWEEP_EVERY_MS = 60_000;
/** Expired rows deleted per statement, and statements per pass: a pass never holds a long lock or a long transaction. */
const SWEEP_BATCH = 1000;
const SWEEP_BATCHES_PER_PASS = 20;

/** What a hit answers with: the stored completion and the tokens it cost when it was made. */
export interface CachedAnswer {
  completion: ChatCompletion;
  tokens: TokenCounts | null;
}

/**
 * The exact response cache's table (docs/routing.md, "Response cache"): one row per project and
 * key, served while younger than the call's TTL and not past its own `expires_at`. Expired rows are
 * swept every minute in bounded batches, on every instance (a batch another instance deleted first
 * simply finds fewer rows).
 */
@Injectable()
export class ResponseCache implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ResponseCache');
  private running: Promise<number> | null = null;
  private stopping = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly schedule: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    startPeriodic(this.schedule, PERIODIC, SWEEP_EVERY_MS, () => void this.sweep());
  }

  async onModuleDestroy(): Promise<void> {
    stopPeriodic(this.schedule, PERIODIC);
    this.stopping = true;
    // Before the database closes.
    await this.running;
  }

  /** The stored answer for `key` in the project, if one is younger than `maxAgeSeconds` and not expired. */
  async find(projectId: string, key: string, maxAgeSeconds: number): Promise<CachedAnswer | null> {
    const rows: CachedAnswer[] = await this.dataSource.query(
      `SELECT completion, tokens FROM response_cache
        WHERE project_id = $1 AND key = $2 AND expires_at > now() AND created_at > now() - make_interval(secs => $3)`,
      [projectId, key, maxAgeSeconds],
    );
    return rows[0] ?? null;
  }

  /**
   * Stores (or replaces) the answer for `ttlSeconds`; false, storing nothing, when its JSON is
   * larger than MAX_ENTRY_BYTES. Two concurrent misses of one key both store: the last one stays.
   */
  async store(projectId: string, key: string, answer: CachedAnswer, ttlSeconds: number): Promise<boolean> {
    const completion = JSON.stringify(answer.completion);
    if (Buffer.byteLength(completion, 'utf8') > MAX_ENTRY_BYTES) return false;
    await this.dataSource.query(
      `INSERT INTO response_cache AS c (project_id, key, completion, tokens, created_at, expires_at)
       VALUES ($1, $2, $3::jsonb, $4::jsonb, now(), now() + make_interval(secs => $5))
       ON CONFLICT (project_id, key) DO UPDATE
          SET completion = EXCLUDED.completion, tokens = EXCLUDED.tokens, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
      [projectId, key, completion, answer.tokens ? JSON.stringify(answer.tokens) : null, ttlSeconds],
    );
    return true;
  }

  /** One pass of the periodic sweep (a pass under way is not doubled); resolves to the rows deleted, never rejects. */
  sweep(): Promise<number> {
    if (this.running || this.stopping) return this.running ?? Promise.resolve(0);
    this.running = this.pass()
      .catch((err: unknown) => {
        this.logger.warn(`sweep: ${(err as Error).message}`);
        return 0;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < SWEEP_BATCHES_PER_PASS && !this.stopping; batch++) {
      // Through the expires_at index; the primary key (with project_id) finds each row again on any partitioning.
      const [, count] = (await this.dataSource.query(
        `DELETE FROM response_cache
          WHERE (project_id, key) IN (SELECT project_id, key FROM response_cache WHERE expires_at <= now() ORDER BY expires_at LIMIT ${SWEEP_BATCH})`,
      )) as [unknown, number];
      deleted += count ?? 0;
      if ((count ?? 0) < SWEEP_BATCH) break;
    }
    return deleted;
  }
}
