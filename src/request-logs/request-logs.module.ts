import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { LogPartitionsService } from './log-partitions.service';
import { RequestLogEntity } from './request-log.entity';
import { RequestLogWriter } from './request-log-writer';
import { RequestLogsController } from './request-logs.controller';
import { RequestLogsRepository } from './request-logs.repository';
import { RequestLogsService } from './request-logs.service';
import { ThreadMessagesSource } from './thread-messages.source';

@Module({
  imports: [TypeOrmModule.forFeature([RequestLogEntity])],
  controllers: [RequestLogsController],
  providers: [RequestLogsRepository, RequestLogsService, LogPartitionsService, RequestLogWriter, ThreadMessagesSource],
  exports: [RequestLogsService],
})
export class RequestLogsModule {}
