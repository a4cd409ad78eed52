import { Logger } from '@nestjs/common';
import { newId } from '../common/ids';
import { LimitsRepository } from './limits.repository';

/** The nil UUID: the heartbeat row every instance keeps, so each knows how many are live. */
const NIL = '00000000-0000-0000-0000-000000000000';
const HEARTBEAT_SCOPE = 'instance';
/** An instance that has not reported for this long is gone (killed): its in-flight calls no longer count. */
const STALE_SECONDS = 5;

/**
 * In-flight invokes per scope: this instance's exact counts, and the other instances' as they
 * reported them at the last exchange (every sync tick). A concurrency limit can be exceeded only
 * by calls that started on two instances within one tick (docs/security.md, "Limits").
 */
export class InflightTracker {
  readonly instanceId = newId();
  private readonly logger = new Logger('Limits');
  private readonly local = new Map<string, { projectId: string; scope: string; count: number; touchedMs: number }>();
  private others = new Map<string, number>();
  private instances = 1;

  liveInstances(): number {
    return this.instances;
  }

  /** Counts one more call if the scope stays within `limit`. */
  tryEnter(projectId: string, scope: string, limit: number): boolean {
    const key = `${projectId}|${scope}`;
    const entry = this.local.get(key) ?? { projectId, scope, count: 0, touchedMs: 0 };
    if (entry.count + (this.others.get(key) ?? 0) + 1 > limit) return false;
    entry.count += 1;
    entry.touchedMs = Date.now();
    this.local.set(key, entry);
    return true;
  }

  leave(projectId: string, scope: string): void {
    const entry = this.local.get(`${projectId}|${scope}`);
    if (entry && entry.count > 0) {
      entry.count -= 1;
      entry.touchedMs = Date.now();
    }
  }

  /** Reports this instance's counts (and that it is alive) and reads the others'. */
  async exchange(repo: LimitsRepository, active: boolean): Promise<void> {
    if (!active && this.local.size === 0) return;
    const now = Date.now();
    const reports = [{ projectId: NIL, scope: HEARTBEAT_SCOPE, count: 1 }];
    for (const [key, entry] of this.local) {
      reports.push({ projectId: entry.projectId, scope: entry.scope, count: entry.count });
      // Reported as 0 once, then forgotten.
      if (entry.count === 0 && now - entry.touchedMs > 2000) this.local.delete(key);
    }
    try {
      const others = await repo.exchangeInflight(this.instanceId, reports, STALE_SECONDS);
      this.instances = 1 + (others.get(`${NIL}|${HEARTBEAT_SCOPE}`) ?? 0);
      others.delete(`${NIL}|${HEARTBEAT_SCOPE}`);
      this.others = others;
    } catch (err) {
      this.logger.warn(`could not share in-flight counts: ${(err as Error).message}`);
    }
  }
}
