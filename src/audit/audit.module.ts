import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditEventEntity } from './audit-event.entity';
import { AuditLog } from './audit-log';
import { AuditRetentionService } from './audit-retention.service';

/** Global: the services that change a project's configuration write their audit events through AuditLog. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEventEntity])],
  providers: [AuditLog, AuditRetentionService],
  exports: [AuditLog],
})
export class AuditModule {}
