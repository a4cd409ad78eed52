import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';

import { ApplyModule } from '../apply/apply.module';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { RegistryModule } from '../registry/registry.module';
import { SetupModule } from '../setup/setup.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';

/**
 * What CLI commands need: the same services as the server, without HTTP. IdempotencyModule
 * because the feature modules' controllers are still instantiated, with their `@Idempotent()`
 * interceptors.
 */
@Module({
  imports: [
    ConfigModule,
    // The CLI's root module: its services' periodic work needs the registry, as in AppModule.
    ScheduleModule.forRoot(),
    DatabaseModule,
    AuditModule,
    AuthModule,
    IdempotencyModule,
    WorkspacesModule,
    SetupModule,
    RegistryModule,
    ApplyModule,
  ],
})
export class CliModule {}
