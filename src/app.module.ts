import { Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';

import { AnthropicModule } from './anthropic/anthropic.module';
import { ApplyModule } from './apply/apply.module';
import { AuditModule } from './audit/audit.module';
import { AuditTrailModule } from './audit-trail/audit-trail.module';
import { AuthModule } from './auth/auth.module';
import { ApiExceptionFilter } from './common/errors';
import { InputValidationPipe } from './common/validation';
import { ConfigModule } from './config/config.module';
import { ConsoleModule } from './console/console.module';
import { ConversationsModule } from './conversations/conversations.module';
import { DatabaseModule } from './database/database.module';
import { EmbeddingsModule } from './embeddings/embeddings.module';
import { EvalsModule } from './evals/evals.module';
import { ExperimentsModule } from './experiments/experiments.module';
import { FeedbackModule } from './feedback/feedback.module';
import { HealthModule } from './health/health.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { ImportModule } from './import/import.module';
import { InvocationModule } from './invocation/invocation.module';
import { LangtailModule } from './langtail/langtail.module';
import { LimitsModule } from './limits/limits.module';
import { LoggingModule } from './logging/logging.module';
import { MembersModule } from './members/members.module';
import { MessagesModule } from './messages/messages.module';
import { MetricsModule } from './metrics/metrics.module';
import { OpenAIModule } from './openai/openai.module';
import { ProjectSettingsModule } from './project-settings/project-settings.module';
import { RegistryModule } from './registry/registry.module';
import { RequestLogsModule } from './request-logs/request-logs.module';
import { ResponsesModule } from './responses/responses.module';
import { ScimModule } from './scim/scim.module';
import { SetupModule } from './setup/setup.module';
import { TelemetryModule } from './telemetry/telemetry.module';
import { ThreadsModule } from './threads/threads.module';
import { UsageModule } from './usage/usage.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

/**
 * The modular monolith. Order matters for routing: every fixed `/v1/...` and `/v2/...` route is
 * registered before the catch-all invoke route `/:workspace/:project/:slug/:environment`
 * (InvocationModule, last).
 */
@Module({
  imports: [
    ConfigModule,
    // OpenTelemetry export (docs/observability.md): off, and nothing of the SDK loaded, without an OTLP endpoint.
    TelemetryModule,
    // The one SchedulerRegistry of the services' periodic work (docs/architecture.md, "House rules").
    ScheduleModule.forRoot(),
    LoggingModule,
    DatabaseModule,
    AuditModule,
    AuthModule,
    HealthModule,
    MetricsModule,
    // The hot /v1 routes early: express tries the routes in order, ~100 of them before the last
    // (docs/performance.md); fixed paths, so they shadow nothing. A module's routes go before those
    // of the modules it imports, so /v1/responses comes first, /v1/chat/completions after those.
    ResponsesModule,
    OpenAIModule,
    // Anthropic's /v1/messages (and /v1/messages/count_tokens): fixed paths too, peers of OpenAI's.
    AnthropicModule,
    EmbeddingsModule,
    ProjectSettingsModule,
    WorkspacesModule,
    // Members, group roles and instance admins (docs/security.md, "Roles").
    MembersModule,
    LimitsModule,
    IdempotencyModule,
    SetupModule,
    ThreadsModule,
    MessagesModule,
    RegistryModule,
    ApplyModule,
    RequestLogsModule,
    UsageModule,
    AuditTrailModule,
    EvalsModule,
    FeedbackModule,
    ExperimentsModule,
    // Before InvocationModule: POST /v1/conversations/:id/items has four segments.
    ConversationsModule,
    ImportModule,
    ConsoleModule,
    // SCIM 2.0 (/scim/v2, docs/security.md "SCIM"): before LangtailModule and InvocationModule, whose
    // four-segment catch-alls would take /scim/v2/Users/{id}.
    ScimModule,
    // After every fixed GET route: its GET /:workspace/:project/:slug/:environment has four segments.
    LangtailModule,
    // Last: its four-segment catch-all must not shadow any fixed route above.
    InvocationModule,
  ],
  providers: [
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
    // The one validation pipe for every DTO-typed body and query (src/common/validation).
    { provide: APP_PIPE, useClass: InputValidationPipe },
  ],
})
export class AppModule {}
