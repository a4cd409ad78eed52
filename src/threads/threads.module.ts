import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ThreadEntity } from './thread.entity';
import { ThreadsController } from './threads.controller';
import { ThreadsRepository } from './threads.repository';
import { ThreadsService } from './threads.service';

@Module({
  imports: [TypeOrmModule.forFeature([ThreadEntity])],
  controllers: [ThreadsController],
  providers: [ThreadsRepository, ThreadsService],
  exports: [ThreadsService],
})
export class ThreadsModule {}
