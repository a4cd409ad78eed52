import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AuthModule } from './auth/auth.module';
import { ApiExceptionFilter } from './common/errors';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { loggerOptions } from './logging/logger-options';
import { MessagesModule } from './messages/messages.module';
import { SetupModule } from './setup/setup.module';
import { ThreadsModule } from './threads/threads.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

/**
 * The modular monolith. Order matters for routing: every fixed `/v2/...` route is registered
 * before the catch-all invoke route `/:workspace/:project/:slug/:environment` (InvocationModule, last).
 */
@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({ inject: [AppConfig], useFactory: loggerOptions }),
    DatabaseModule,
    AuthModule,
    HealthModule,
    WorkspacesModule,
    SetupModule,
    ThreadsModule,
    MessagesModule,
  ],
  providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
})
export class AppModule {}
