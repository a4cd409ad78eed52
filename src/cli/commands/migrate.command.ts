import { Command } from 'commander';
import { DataSource } from 'typeorm';

import { loadAppConfig } from '../../config/app-config';
import { lockDataDir } from '../../database/data-dir-lock';
import { buildDataSourceOptions } from '../../database/data-source-options';
import { runMigrations } from '../../database/migrate';
import { output } from '../cli-context';

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (the server also does this at start)')
    .option('--json', 'print the applied migrations as JSON')
    .action(async (opts: { json?: boolean }) => {
      const config = loadAppConfig();
      const release = config.embedded && !config.inMemory ? await lockDataDir(config.dataDir) : undefined;
      const dataSource = await new DataSource(buildDataSourceOptions(config)).initialize();
      try {
        const applied = await runMigrations(dataSource, config.embedded, config.schemaMode);
        output(!!opts.json, { applied }, () => (applied.length ? `Applied: ${applied.join(', ')}` : 'The schema is up to date.'));
      } finally {
        await dataSource.destroy();
        await release?.();
      }
    });
}
