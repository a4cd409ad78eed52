import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { RequestLogsModule } from '../request-logs/request-logs.module';
import { ThreadsModule } from '../threads/threads.module';
import { HistoryReader } from './history-reader';
import { MessageStore } from './message-store';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import { ThreadMessageEntity } from './thread-message.entity';

/** MessageStore for the core; MessagesService is the spec endpoints' own (a message's log summary from RequestLogsModule). */
@Module({
  imports: [TypeOrmModule.forFeature([ThreadMessageEntity]), ThreadsModule, RequestLogsModule],
  controllers: [MessagesController],
  providers: [MessagesRepository, HistoryReader, MessageStore, MessagesService],
  exports: [MessageStore],
})
export class MessagesModule {}
