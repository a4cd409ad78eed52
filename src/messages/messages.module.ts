import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RequestLogsModule } from '../request-logs/request-logs.module';
import { ThreadsModule } from '../threads/threads.module';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import { ThreadMessageEntity } from './thread-message.entity';

@Module({
  imports: [TypeOrmModule.forFeature([ThreadMessageEntity]), ThreadsModule, RequestLogsModule],
  controllers: [MessagesController],
  providers: [MessagesRepository, MessagesService],
  exports: [MessagesService],
})
export class MessagesModule {}
