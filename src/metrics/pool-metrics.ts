import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { MetricsService } from './metrics.service';

/** What node-postgres' Pool reports; PGlite's pool (one session) has no such counters. */
interface PgPoolCounters {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

const isPgPool = (pool: unknown): pool is PgPoolCounters =>
  typeof (pool as PgPoolCounters | undefined)?.totalCount === 'number' && typeof (pool as PgPoolCounters).waitingCount === 'number';

/**
 * The PostgreSQL connection pool of this instance, read at each scrape: connections in use, idle,
 * and queries waiting for one (a sign DB_POOL_SIZE is too small or a project hogs it). PostgreSQL only.
 */
@Injectable()
export class PoolMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    const pool = () => {
      const master = (this.dataSource.driver as unknown as { master?: unknown }).master;
      return isPgPool(master) ? master : null;
    };
    if (!pool()) return;
    this.metrics.gauge(
      'parley_db_pool_connections',
      'PostgreSQL pool connections of this instance, by state (in_use or idle)',
      ['state'],
      (gauge) => {
        const p = pool();
        if (!p) return;
        gauge.set({ state: 'in_use' }, p.totalCount - p.idleCount);
        gauge.set({ state: 'idle' }, p.idleCount);
      },
    );
    this.metrics.gauge('parley_db_pool_waiting', 'Queries waiting for a PostgreSQL pool connection on this instance', [], (gauge) => {
      gauge.set(pool()?.waitingCount ?? 0);
    });
  }
}
