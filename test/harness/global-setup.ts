import { pgliteTemplate, postgresWorkerDatabases } from './template-databases';

/**
 * Once per jest run, before any worker starts: the migrated databases the test files start from.
 * Workers inherit process.env as it is here, and test/harness/worker-database.ts picks a worker's own.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const started = Date.now();
  if (process.env.DATABASE_URL) {
    const workers = Math.max(1, globalConfig.maxWorkers);
    const names = await postgresWorkerDatabases(process.env.DATABASE_URL, workers);
    process.env.PARLEY_TEST_WORKER_DATABASES = names.join(',');
  } else {
    process.env.PARLEY_TEST_PGLITE_TEMPLATE = await pgliteTemplate();
  }
  if (process.env.PARLEY_TEST_VERBOSE_SETUP) console.log(`\ntest databases ready in ${Date.now() - started} ms`);
}
