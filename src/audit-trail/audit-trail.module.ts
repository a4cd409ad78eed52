import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditEventEntity } from '../audit/audit-event.entity';
import { AuditTrailController } from './audit-trail.controller';
import { AuditTrailService } from './audit-trail.service';
import { InstanceAuditTrailController } from './instance-audit-trail.controller';
import { InstanceAuditTrailService } from './instance-audit-trail.service';

@Module({
  imports: [TypeOrmModule.forFeature([AuditEventEntity])],
  controllers: [AuditTrailController, InstanceAuditTrailController],
  providers: [AuditTrailService, InstanceAuditTrailService],
})
export class AuditTrailModule {}
