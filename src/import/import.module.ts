import { Module } from '@nestjs/common';

import { MessagesModule } from '../messages/messages.module';
import { ThreadsModule } from '../threads/threads.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ImportController } from './import.controller';
import { ImportFacade } from './import.facade';
import { ImportService } from './import.service';

/** `POST /v2/import` and `parley import assistants-threads`: Assistants API exports into threads. */
@Module({
  imports: [ThreadsModule, MessagesModule, WorkspacesModule],
  controllers: [ImportController],
  providers: [ImportService, ImportFacade],
  exports: [ImportFacade],
})
export class ImportModule {}
