import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { EntityManager } from 'typeorm';
import { getPGliteInstance } from 'typeorm-pglite';

import { startPeriodic, stopPeriodic } from '../../common/periodic';
import { AppConfig } from '../../config/app-config';
import { Change, CHANGE_CHANNEL, decodeChange, encodeChange } from './change';
import { PgChangeListener, PROBE_INTERVAL_MS } from './pg-change-listener';

const PROBE = 'change-listener-probe';

/** What a cache does when another instance (or this one) commits a change it may hold. */
export interface ChangeSubscriber {
  onChange(change: Change): void;
  /** Notifications may have been missed (listener reconnecting): drop everything. */
  onFlush(): void;
}

/**
 * Cache invalidation across instances (docs/scaling.md, "Instant invalidation"). A write publishes
 * its change with `pg_notify` inside its own transaction, so PostgreSQL delivers it when (and only
 * if) the transaction commits, to every instance LISTENing, this one included. On PostgreSQL the
 * listener is a dedicated connection outside the pool (PgChangeListener); on PGlite, the one
 * in-process database delivers the same notifications to its own listener. The caches' TTLs stay
 * as the bound when a notification is lost; a listener that reconnects flushes them all.
 */
@Injectable()
export class ChangeNotifier implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ChangeNotifier');
  private readonly subscribers: ChangeSubscriber[] = [];
  private stop: (() => Promise<void>) | null = null;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {}

  subscribe(subscriber: ChangeSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** Publishes `change` in `manager`'s transaction: delivered on commit, dropped on rollback. */
  async publish(change: Change, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, encodeChange(change)]);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.databaseUrl) {
      const listener = new PgChangeListener(this.config.databaseDirectUrl ?? this.config.databaseUrl, {
        onPayload: (payload) => this.deliver(payload),
        onFlush: () => this.flush(),
        onError: (message) => this.logger.warn(message),
      });
      await listener.start();
      startPeriodic(this.schedule, PROBE, PROBE_INTERVAL_MS, () => void listener.probe());
      this.stop = () => {
        stopPeriodic(this.schedule, PROBE);
        return listener.stop();
      };
    } else {
      const pglite = await getPGliteInstance();
      const unlisten = await pglite.listen(CHANGE_CHANNEL, (payload) => this.deliver(payload));
      this.stop = () => unlisten().catch(() => undefined);
    }
  }

  /** Before the database closes (TypeORM closes it at application shutdown). */
  async onModuleDestroy(): Promise<void> {
    const stop = this.stop;
    this.stop = null;
    await stop?.();
  }

  private deliver(payload: string): void {
    const change = decodeChange(payload);
    if (!change) return void this.logger.warn(`Ignored an unknown change notification: ${payload.slice(0, 100)}`);
    for (const subscriber of this.subscribers) subscriber.onChange(change);
  }

  private flush(): void {
    for (const subscriber of this.subscribers) subscriber.onFlush();
  }
}
