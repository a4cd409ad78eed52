import { Logger } from '@nestjs/common';

import { newId } from '../common/ids';
import { LimitsRepository } from './limits.repository';

/** An instance that has not reported for this long is gone (killed): the slots it held no longer count. */
const STALE_SECONDS = 5;
/** A slot a finished call leaves is kept this long for this instance's next call, then given back. */
const SPARE_MS = 200;
/**
 * An instance that serves no limited call still reports that it is alive this often, so the others
 * count it from its start: the rate limits' local budgets are split by the live instances, and an
 * instance that others did not count could admit twice its share before its first report.
 */
const IDLE_HEARTBEAT_MS = 1000;

interface ScopeSlots {
  projectId: string;
  scope: string;
  /** Calls of this scope running here now. */
  running: number;
  /** Slots this instance holds in limit_inflight: the running calls plus spare ones not yet given back. */
  held: number;
  /** Slots being taken right now (the entry must outlive them). */
  taking: number;
  idleSinceMs: number;
}

/**
 * `concurrentInvokes` across instances (docs/security.md, "Limits"): a call runs on a slot that
 * this instance holds in `limit_inflight`, one row per project, scope and instance. Taking a slot
 * is one transaction that sums the live instances' slots under an advisory lock of the scope and
 * adds one only if the sum stays within the limit, so the limit holds exactly across instances.
 * The steady state stays cheap: a slot a finished call leaves is kept for SPARE_MS and reused by
 * this instance's next call without a round trip; spare slots go back in one statement per tick.
 * A killed instance's slots stop counting once it has not reported for STALE_SECONDS.
 */
export class ConcurrencyLeases {
  readonly instanceId = newId();
  private readonly logger = new Logger('Limits');
  private readonly slots = new Map<string, ScopeSlots>();
  private instances = 1;
  private lastHeartbeatMs = 0;

  constructor(private readonly repo: LimitsRepository) {}

  liveInstances(): number {
    return this.instances;
  }

  /** Whether this instance holds any slot (it must then keep reporting that it is alive). */
  holdsSlots(): boolean {
    for (const entry of this.slots.values()) if (entry.held > 0) return true;
    return false;
  }

  /** Takes a slot of the scope if the scope stays within `limit` across every live instance. */
  async tryEnter(projectId: string, scope: string, limit: number): Promise<boolean> {
    const key = `${projectId}|${scope}`;
    let entry = this.slots.get(key);
    if (!entry) {
      entry = { projectId, scope, running: 0, held: 0, taking: 0, idleSinceMs: 0 };
      this.slots.set(key, entry);
    }
    if (entry.running >= limit) return false;
    if (entry.running < entry.held) {
      entry.running += 1;
      return true;
    }
    entry.taking += 1;
    let taken: boolean;
    try {
      taken = await this.repo.takeSlot(projectId, scope, this.instanceId, limit, STALE_SECONDS);
    } finally {
      entry.taking -= 1;
    }
    if (!taken) return false;
    entry.held += 1;
    entry.running += 1;
    return true;
  }

  leave(projectId: string, scope: string): void {
    const entry = this.slots.get(`${projectId}|${scope}`);
    if (!entry || entry.running === 0) return;
    entry.running -= 1;
    entry.idleSinceMs = Date.now();
  }

  /** Every tick: gives back spare slots idle for SPARE_MS, and reports that this instance is alive. */
  async exchange(active: boolean): Promise<void> {
    const now = Date.now();
    const returns: { projectId: string; scope: string; count: number }[] = [];
    for (const [key, entry] of this.slots) {
      if (entry.held > entry.running && now - entry.idleSinceMs >= SPARE_MS) {
        returns.push({ projectId: entry.projectId, scope: entry.scope, count: entry.held - entry.running });
        entry.held = entry.running;
      }
      if (entry.held === 0 && entry.running === 0 && entry.taking === 0) this.slots.delete(key);
    }
    try {
      if (returns.length > 0) await this.repo.giveBackSlots(this.instanceId, returns);
      if (active || this.holdsSlots() || now - this.lastHeartbeatMs >= IDLE_HEARTBEAT_MS) {
        this.lastHeartbeatMs = now;
        this.instances = 1 + (await this.repo.heartbeat(this.instanceId, STALE_SECONDS));
      }
    } catch (err) {
      // Not given back: the rows stay until this instance reports again or is gone for STALE_SECONDS.
      this.logger.warn(`could not share concurrency slots: ${(err as Error).message}`);
    }
  }
}
