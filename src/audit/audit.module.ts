import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditEventEntity } from './audit-event.entity';
import { AuditLog } from './audit-log';
import { AuditRetentionService } from './audit-retention.service';
import { InstanceAuditLog } from './instance-audit-log';

/** Global: the services that change a project's configuration write their audit events through AuditLog,
 * the instance's own events (workspaces, members, sign-ins, SCIM) through InstanceAuditLog. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEventEntity])],
  providers: [AuditLog, InstanceAuditLog, AuditRetentionService],
  exports: [AuditLog, InstanceAuditLog],
})
export class AuditModule {}
