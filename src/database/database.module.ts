import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';

import { AppConfig, SchemaMode } from '../config/app-config';
import { ChangesModule } from './changes';
import { buildDataSourceOptions } from './data-source-options';
import { runMigrations } from './migrate';

/** Opens the database and brings its schema up to date before any module uses it; carries the change notifier. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // The schema mode rides along in the options, which is all dataSourceFactory is given.
      useFactory: (config: AppConfig) => ({ ...buildDataSourceOptions(config), schemaMode: config.schemaMode }),
      dataSourceFactory: async (options) => {
        const { schemaMode, ...dataSourceOptions } = options as DataSourceOptions & { schemaMode: SchemaMode };
        const dataSource = await new DataSource(dataSourceOptions).initialize();
        const embedded = !(options as { url?: string }).url;
        await runMigrations(dataSource, embedded, schemaMode);
        return dataSource;
      },
    }),
    ChangesModule,
  ],
})
export class DatabaseModule {}
