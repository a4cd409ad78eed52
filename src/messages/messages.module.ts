import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { RequestLogsModule } from '../request-logs/request-logs.module';
import { ThreadMessagesSource } from '../request-logs/thread-messages.source';
import { ThreadsModule } from '../threads/threads.module';
import { HistoryReader } from './history-reader';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import { ThreadMessageEntity } from './thread-message.entity';
import { ThreadMessagesSourceImpl } from './thread-messages-source';

/** Global only for ThreadMessagesSource, which the request-logs module (imported here) injects. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ThreadMessageEntity]), ThreadsModule, RequestLogsModule],
  controllers: [MessagesController],
  providers: [MessagesRepository, HistoryReader, MessagesService, { provide: ThreadMessagesSource, useClass: ThreadMessagesSourceImpl }],
  exports: [MessagesService, ThreadMessagesSource],
})
export class MessagesModule {}
