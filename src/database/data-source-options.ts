import * as fs from 'node:fs';
import * as path from 'node:path';

import { DataSourceOptions } from 'typeorm';
import { PGliteDriver } from 'typeorm-pglite';

import { AppConfig } from '../config/app-config';
import { PGliteExclusivePool } from './pglite-exclusive-pool';

const ENTITIES = [path.join(__dirname, '..', '**', '*.entity.{ts,js}')];
const MIGRATIONS = [path.join(__dirname, 'migrations', '*.{ts,js}')];

/** PostgreSQL when DATABASE_URL is set, embedded PGlite under DATA_DIR otherwise; same schema and migrations. */
export function buildDataSourceOptions(config: AppConfig): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // The schema is owned by migrations, run at start under a lock (see migrate.ts).
    synchronize: false,
    migrationsRun: false,
    logging: false,
  } as const;
  if (config.databaseUrl) {
    return {
      ...common,
      type: 'postgres',
      url: config.databaseUrl,
      poolSize: config.dbPoolSize,
      // Pipeline mode: statements sent together share a round trip (pipelined-transaction.ts); awaited one by one they go as before.
      extra: { connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000, pipeline: true },
      applicationName: 'parley',
    };
  }
  if (!config.inMemory) fs.mkdirSync(config.dataDir, { recursive: true });
  const pglite = new PGliteDriver({
    dataDir: config.inMemory ? 'memory://' : path.join(config.dataDir, 'pgdata'),
    ...(config.dataDirTemplate ? { loadDataDir: new Blob([fs.readFileSync(config.dataDirTemplate)]) } : {}),
  });
  return {
    ...common,
    type: 'postgres',
    driver: { ...pglite.driver, Pool: PGliteExclusivePool },
  };
}
