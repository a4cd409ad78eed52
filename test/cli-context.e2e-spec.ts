import { NestFactory } from '@nestjs/core';

import { ApplyService } from '../src/apply/apply.service';
import { CliModule } from '../src/cli/cli.module';
import { ImportCliModule } from '../src/cli/import-cli.module';
import { WorkspacesService } from '../src/workspaces/workspaces.service';

/**
 * The CLI on the database directly (no server holds the data, e.g. PostgreSQL): its module must
 * boot with every feature module's controllers and their `@Idempotent()` interceptors resolved.
 */
describe('CLI application context', () => {
  beforeAll(() => {
    process.env.LOG_LEVEL = 'silent';
    if (!process.env.DATABASE_URL) process.env.DATA_DIR = 'memory://';
    // In memory, from the run's migrated dump (test/harness), as test apps start.
    if (!process.env.DATABASE_URL && process.env.PARLEY_TEST_PGLITE_TEMPLATE)
      process.env.DATA_DIR_TEMPLATE = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
  });
  afterAll(() => {
    delete process.env.DATA_DIR_TEMPLATE;
  });

  it.each([
    ['CliModule', CliModule],
    ['ImportCliModule', ImportCliModule],
  ])('%s boots and serves apply', async (_name, module) => {
    const ctx = await NestFactory.createApplicationContext(module, { logger: false, abortOnError: false });
    try {
      expect(ctx.get(ApplyService)).toBeInstanceOf(ApplyService);
      expect(await ctx.get(WorkspacesService).findWorkspace('no-such-workspace-x')).toBeNull();
    } finally {
      await ctx.close();
    }
  });
});
