import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RequestLogEntity } from './request-log.entity';
import { RequestLogsController } from './request-logs.controller';
import { RequestLogsRepository } from './request-logs.repository';
import { RequestLogsService } from './request-logs.service';

@Module({
  imports: [TypeOrmModule.forFeature([RequestLogEntity])],
  controllers: [RequestLogsController],
  providers: [RequestLogsRepository, RequestLogsService],
  exports: [RequestLogsService],
})
export class RequestLogsModule {}
