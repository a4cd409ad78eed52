import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { ChangesModule } from './changes';
import { buildDataSourceOptions } from './data-source-options';
import { runMigrations } from './migrate';

/** Opens the database and brings its schema up to date before any module uses it; carries the change notifier. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => buildDataSourceOptions(config),
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        const embedded = !(options as { url?: string }).url;
        await runMigrations(dataSource, embedded);
        return dataSource;
      },
    }),
    ChangesModule,
  ],
})
export class DatabaseModule {}
