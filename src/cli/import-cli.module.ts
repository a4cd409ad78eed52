import { Module } from '@nestjs/common';

import { ImportModule } from '../import/import.module';
import { CliModule } from './cli.module';

/** The CLI's services plus the import, for `parley import assistants-threads` on the database. */
@Module({ imports: [CliModule, ImportModule] })
export class ImportCliModule {}
