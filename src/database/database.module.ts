import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';

import { AppConfig, SchemaMode } from '../config/app-config';
import { ChangesModule } from './changes';
import { buildDataSourceOptions } from './data-source-options';
import { connectPostgres } from './database-connect';
import { runMigrations } from './migrate';

/** Opens the database and brings its schema up to date before any module uses it; carries the change notifier. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // The schema mode rides along in the options, which is all dataSourceFactory is given.
      // No retries of TypeORM's own (nine, 3 s apart, a stack trace each): connectPostgres retries
      // a connection error for a few seconds, then fails with one line (docs/operations.md).
      useFactory: (config: AppConfig) => ({
        ...buildDataSourceOptions(config),
        schemaMode: config.schemaMode,
        toRetry: () => false,
      }),
      dataSourceFactory: async (options) => {
        const {
          schemaMode,
          toRetry: _toRetry,
          ...dataSourceOptions
        } = options as DataSourceOptions & { schemaMode: SchemaMode; toRetry?: unknown };
        const url = (options as { url?: string }).url;
        const open = () => new DataSource(dataSourceOptions).initialize();
        const dataSource = url ? await connectPostgres(open, url) : await open();
        await runMigrations(dataSource, !url, schemaMode);
        return dataSource;
      },
    }),
    ChangesModule,
  ],
})
export class DatabaseModule {}
