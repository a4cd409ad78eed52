import { Module } from '@nestjs/common';
import { CliModule } from './cli.module';
import { ImportModule } from '../import/import.module';

/** The CLI's services plus the import, for `parley import assistants-threads` on the database. */
@Module({ imports: [CliModule, ImportModule] })
export class ImportCliModule {}
