import { randomUUID } from 'node:crypto';

import { Logger } from '@nestjs/common';

import { CostEstimates } from './cost-estimates';
import { LimitsRepository } from './limits.repository';
import { SharedCounters } from './shared-counters';

/** How long a cold key's calls wait for its first call's cost before reserving nothing. */
const PROBE_WAIT_MS = 30_000;
/** How often an instance asks whether another instance's probe of a key has measured its cost. */
const PROBE_POLL_MS = 25;

interface Probe {
  projectId: string;
  keyId: string;
  waiters: Array<() => void>;
  /** This instance holds the key's lease in limit_budget_probes: it publishes the cost, or drops the lease. */
  shared: boolean;
  settled: boolean;
}

const probeIdOf = (projectId: string, keyId: string) => `${projectId}|${keyId}`;

/**
 * The calls of keys whose cost is not known yet (docs/usage.md, "Budgets"): one call of such a key
 * runs alone across every instance, and the others wait for what it cost. Budgets asks for a turn
 * before it reserves, and reports each measured cost.
 */
export class ColdKeyProbes {
  /** Keys whose cost this instance does not know yet: their one call in flight, and who waits for it. */
  private readonly probes = new Map<string, Probe>();
  /** This instance's name on the probe leases it holds. */
  private readonly holder = randomUUID();
  private readonly logger = new Logger('Budgets');

  constructor(
    private readonly estimates: CostEstimates,
    private readonly counters: SharedCounters,
    private readonly repo: LimitsRepository,
  ) {}

  /** A call of the key measured its cost (already charged to the counters): its probe ends, and is shared. */
  measured(projectId: string, keyId: string, nano: number): void {
    if (this.probes.size === 0) return;
    const id = probeIdOf(projectId, keyId);
    const probe = this.probes.get(id);
    if (!probe) return;
    if (probe.shared) {
      probe.settled = true;
      void this.publish(projectId, keyId, nano);
    }
    this.endProbe(id, probe);
  }

  /**
   * The other instances learn a probe's cost only once its charge is in the shared counters: else
   * they would reserve against a total short of it, and admit one call too many.
   */
  private async publish(projectId: string, keyId: string, nano: number): Promise<void> {
    try {
      await this.counters.flush();
      await this.repo.settleProbe(projectId, keyId, this.holder, nano);
    } catch (err) {
      this.logger.warn(`could not share a key's first cost: ${(err as Error).message}`);
    }
  }

  /**
   * A key whose cost is not known yet reserves nothing, so a burst from a cold key would all be
   * admitted: its first call runs alone across every instance (the probe, leased in
   * limit_budget_probes), the others wait until its cost is charged and shared, or it ends, then
   * reserve what it cost (docs/usage.md, "Budgets"). On an instance, one call waits for another
   * instance's probe, the rest wait for that one. Undefined when the estimate is known, or when
   * waiting took PROBE_WAIT_MS (a call that slow reserves nothing), or when the caller left
   * (`signal`: its call then ends at once, as any call whose client left, and is logged as 499).
   */
  async turn(projectId: string, keyId: string, signal?: AbortSignal): Promise<(() => void) | undefined> {
    const id = probeIdOf(projectId, keyId);
    const deadline = Date.now() + PROBE_WAIT_MS;
    for (;;) {
      if (this.estimates.knows(projectId, keyId) || signal?.aborted) return undefined;
      const running = this.probes.get(id);
      if (!running) {
        const probe: Probe = { projectId, keyId, waiters: [], shared: false, settled: false };
        this.probes.set(id, probe);
        const turn = await this.sharedTurn(projectId, keyId, deadline, signal);
        if (turn === 'mine') {
          probe.shared = true;
          return () => this.endProbe(id, probe);
        }
        if (turn === 'alone') return () => this.endProbe(id, probe);
        this.endProbe(id, probe);
        return undefined;
      }
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        timer.unref();
        signal?.addEventListener('abort', wake, { once: true });
        running.waiters.push(wake);
      });
    }
  }

  /**
   * The key's lease across instances: 'mine' (this call probes), 'known' (another instance's probe
   * measured the cost, now this instance's estimate), 'late' (waited PROBE_WAIT_MS), or 'alone'
   * when the database could not be asked (the probe then holds on this instance only).
   */
  private async sharedTurn(
    projectId: string,
    keyId: string,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<'mine' | 'known' | 'late' | 'alone'> {
    for (;;) {
      let claim;
      try {
        claim = await this.repo.claimProbe(projectId, keyId, this.holder, PROBE_WAIT_MS);
      } catch (err) {
        this.logger.warn(`could not lease a key's first call: ${(err as Error).message}`);
        return 'alone';
      }
      if (claim.state === 'won') return 'mine';
      if (claim.state === 'known') {
        this.estimates.observe(projectId, keyId, claim.costNano);
        return 'known';
      }
      if (Date.now() + PROBE_POLL_MS > deadline || signal?.aborted) return 'late';
      await new Promise((resolve) => setTimeout(resolve, PROBE_POLL_MS).unref());
      if (this.estimates.knows(projectId, keyId)) return 'known';
    }
  }

  private endProbe(id: string, probe: Probe): void {
    if (this.probes.get(id) === probe) this.probes.delete(id);
    for (const wake of probe.waiters.splice(0)) wake();
    if (probe.shared && !probe.settled) {
      // Ended without a measured cost: free the lease so the next call, here or elsewhere, probes.
      probe.settled = true;
      void this.repo
        .dropProbe(probe.projectId, probe.keyId, this.holder)
        .catch((err: unknown) => this.logger.warn(`could not free a key's first call: ${(err as Error).message}`));
    }
  }
}
