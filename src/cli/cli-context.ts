import { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, loadAppConfig } from '../config/app-config';
import { lockDataDir } from '../database/data-dir-lock';
import { CliModule } from './cli.module';

/**
 * Runs `work` with the application's services on the configured database. On the embedded
 * database it first takes the DATA_DIR lock, so it never opens files a running server holds
 * (it fails with DataDirLockedError instead).
 */
export async function withAppContext<T>(work: (ctx: INestApplicationContext, config: AppConfig) => Promise<T>, module: Type = CliModule): Promise<T> {
  const config = loadAppConfig();
  const release = config.embedded && !config.inMemory ? await lockDataDir(config.dataDir) : undefined;
  const ctx = await NestFactory.createApplicationContext(module, { logger: ['error'] });
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
