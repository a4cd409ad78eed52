import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { Change, ChangeNotifier } from '../database/changes';
import { MetricsService } from '../metrics/metrics.service';
import { HealthChange, HealthState, targetKey } from './health-state';
import { HealthStore } from './health-store';
import { StickyThreads } from './sticky-threads';
import { AttemptOutcome, TargetHealth, TargetRef } from './target-health';

/** Health writes under way at once; a storm of trips across many targets queues behind them. */
const MAX_WRITES_IN_FLIGHT = 2;
/** Rows of cooldowns that ended this long ago are deleted at start. */
const PRUNE_AFTER_MS = 24 * 3600_000;
/** How long a shutdown waits for the writes still queued. */
const SHUTDOWN_WAIT_MS = 5_000;

/**
 * TargetHealth shared across replicas (docs/routing.md, "Health" and "Stickiness"). Each instance
 * decides from what it holds (HealthState), so asking costs nothing; a trip or a recovery is
 * applied here at once, then written in the background (routing_target_health) with its change
 * notification in the same transaction, so every other instance applies it within milliseconds of
 * the commit. Writes are at most one per target per cooldown, a few at a time, and their failure
 * only leaves the other instances uninformed: a call is never delayed or failed by them.
 */
@Injectable()
export class SharedTargetHealth extends TargetHealth implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('TargetHealth');
  readonly state: HealthState;
  private readonly store: HealthStore;
  private readonly sticky: StickyThreads;
  /** The newest change to write per target; a newer one replaces one not yet sent. */
  private readonly pending = new Map<string, HealthChange>();
  /** Targets whose write is under way (their next waits, in order). */
  private readonly writing = new Set<string>();
  private inFlight = 0;
  private idle: Promise<void> = Promise.resolve();
  private settle: (() => void) | null = null;

  constructor(config: AppConfig, dataSource: DataSource, changes: ChangeNotifier, metrics: MetricsService) {
    super();
    this.state = new HealthState({ baseCooldownMs: config.routingCooldownMs });
    this.store = new HealthStore(dataSource, changes);
    this.sticky = new StickyThreads(dataSource);
    changes.subscribe({ onChange: (change) => this.onChange(change), onFlush: () => void this.reload() });
    metrics.gauge(
      'parley_routing_cooling_targets',
      'Routing targets (project, provider, model) this instance holds as cooling down',
      [],
      (gauge) => gauge.set(this.state.coolingCount()),
    );
  }

  /** What the other instances tripped before this one started. */
  async onApplicationBootstrap(): Promise<void> {
    await this.store.prune(PRUNE_AFTER_MS).catch((err: Error) => this.logger.warn(`pruning old cooldowns: ${err.message}`));
    await this.reload();
  }

  /** Before the database closes: the trips and recoveries still queued are written (for a few seconds at most). */
  async onModuleDestroy(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS).unref()));
    await Promise.race([this.flushed(), late]).finally(() => clearTimeout(timer));
  }

  cooling(target: TargetRef): boolean {
    return this.state.cooling(target);
  }

  available(target: TargetRef): boolean {
    return this.state.available(target);
  }

  latencyMs(target: TargetRef): number | undefined {
    return this.state.latencyMs(target);
  }

  record(target: TargetRef, outcome: AttemptOutcome): void {
    const change = this.state.record(target, outcome);
    if (!change) return;
    if (change.kind === 'trip') {
      const { projectId, provider, model } = change.target;
      const ms = change.until - Date.now();
      this.logger.warn(
        `target ${provider}/${model} of project ${projectId} cools down for ${ms} ms (trip ${change.trips}, ${change.reason})`,
      );
    }
    this.enqueue(change);
  }

  stickyTarget(projectId: string, threadId: string): Promise<Omit<TargetRef, 'projectId'> | undefined> {
    return this.sticky.get(projectId, threadId);
  }

  served(projectId: string, threadId: string, target: Omit<TargetRef, 'projectId'>): void {
    this.sticky.served(projectId, threadId, target);
  }

  /** Resolves once every write queued so far is done (tests, shutdown). */
  async flushed(): Promise<void> {
    while (this.pending.size > 0 || this.inFlight > 0) await this.idle;
  }

  private onChange(change: Change): void {
    if (change.kind !== 'target-health') return;
    const target = { projectId: change.projectId, provider: change.provider, model: change.model };
    if (change.trips > 0) this.state.applyTrip(target, change.until, change.trips);
    else this.state.applyRecovery(target, change.until);
  }

  private async reload(): Promise<void> {
    try {
      const readSince = this.state.changes;
      const rows = await this.store.load(this.state.maxCooldownMs);
      this.state.reload(rows, (key) => this.pending.has(key) || this.writing.has(key), readSince);
    } catch (err) {
      this.logger.warn(`reading the targets cooling down: ${(err as Error).message}`);
    }
  }

  private enqueue(change: HealthChange): void {
    if (this.pending.size === 0 && this.inFlight === 0) this.idle = new Promise((resolve) => (this.settle = resolve));
    this.pending.set(targetKey(change.target), change);
    this.pump();
  }

  private pump(): void {
    for (const [key, change] of this.pending) {
      if (this.inFlight >= MAX_WRITES_IN_FLIGHT) return;
      if (this.writing.has(key)) continue;
      this.pending.delete(key);
      this.writing.add(key);
      this.inFlight++;
      void this.store
        .write(change)
        .catch((err: Error) => this.logger.warn(`writing the health of ${change.target.provider}/${change.target.model}: ${err.message}`))
        .finally(() => {
          this.writing.delete(key);
          this.inFlight--;
          this.pump();
          if (this.pending.size === 0 && this.inFlight === 0) this.settle?.();
        });
    }
  }
}
