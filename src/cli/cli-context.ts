import { INestApplicationContext, Logger, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

import { AppConfig, loadAppConfig } from '../config/app-config';
import { lockDataDir } from '../database/data-dir-lock';
import { DatabaseConnectError } from '../database/database-connect';
import { describeDatabaseUrl, EMBEDDED_DATABASE, isServerRunning, readServerInfo } from '../database/server-info';
import { CliModule } from './cli.module';
import { announceTarget } from './server-route';

/** A server runs on PostgreSQL while the command, without DATABASE_URL, would open DATA_DIR's embedded database. */
export class UnusedDatabaseError extends Error {
  constructor(dataDir: string, server: { url: string; pid: number; database: string }) {
    super(
      `A Parley server (pid ${server.pid}, ${server.url}) is running on ${server.database}, not on the embedded database in ` +
        `${dataDir} that this command would change. Set DATABASE_URL to the server's database (or use --url and --key) ` +
        'and run it again; to work on the embedded database, stop that server or choose another DATA_DIR.',
    );
  }
}

/**
 * Runs `work` with the application's services on the configured database, after saying which one
 * on stderr. On the embedded database it first refuses when a server started from this DATA_DIR
 * runs on PostgreSQL (UnusedDatabaseError), then takes the DATA_DIR lock, so it never opens files
 * a running server holds (it fails with DataDirLockedError instead).
 */
export async function withAppContext<T>(
  work: (ctx: INestApplicationContext, config: AppConfig) => Promise<T>,
  module: Type = CliModule,
): Promise<T> {
  const config = loadAppConfig();
  if (config.embedded && !config.inMemory) {
    const server = readServerInfo(config.dataDir);
    if (server && server.database !== EMBEDDED_DATABASE && isServerRunning(server)) throw new UnusedDatabaseError(config.dataDir, server);
  }
  announceTarget(
    config.databaseUrl !== undefined
      ? `PostgreSQL at ${describeDatabaseUrl(config.databaseUrl)} (DATABASE_URL)`
      : config.inMemory
        ? 'an in-memory embedded database (DATA_DIR=memory://)'
        : `the embedded database in ${config.dataDir} (DATA_DIR; no DATABASE_URL set)`,
  );
  const release = config.embedded && !config.inMemory ? await lockDataDir(config.dataDir) : undefined;
  let ctx: INestApplicationContext;
  try {
    // abortOnError: false and Nest's logs held back until it stands: a database that cannot be
    // reached is one line (DatabaseConnectError, printed by cli/main.ts as `parley: …`), not Nest's stack trace.
    ctx = await NestFactory.createApplicationContext(module, {
      logger: ['error'],
      abortOnError: false,
      bufferLogs: true,
      autoFlushLogs: false,
    });
  } catch (err) {
    if (!(err instanceof DatabaseConnectError)) Logger.flush();
    await release?.();
    throw err;
  }
  ctx.flushLogs();
  try {
    return await work(ctx, config);
  } finally {
    await ctx.close();
    await release?.();
  }
}

/** Prints either JSON (for scripts) or the human lines. */
export function output(json: boolean, value: unknown, human: () => string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human());
}
