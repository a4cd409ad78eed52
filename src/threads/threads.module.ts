import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ThreadEntity } from './thread.entity';
import { ThreadStore } from './thread-store';
import { ThreadsController } from './threads.controller';
import { ThreadsRepository } from './threads.repository';
import { ThreadsService } from './threads.service';

/** ThreadStore for the core; ThreadsService, the spec endpoints' service, for the messages endpoints' thread check. */
@Module({
  imports: [TypeOrmModule.forFeature([ThreadEntity])],
  controllers: [ThreadsController],
  providers: [ThreadsRepository, ThreadStore, ThreadsService],
  exports: [ThreadStore, ThreadsService],
})
export class ThreadsModule {}
