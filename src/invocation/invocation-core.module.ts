import { Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { JobsModule } from '../jobs/jobs.module';
import { LimitsModule } from '../limits/limits.module';
import { MessagesModule } from '../messages/messages.module';
import { ProjectSettingsCoreModule } from '../project-settings/project-settings.module';
import { ProvidersModule } from '../providers';
import { RegistryModule } from '../registry/registry.module';
import { RequestLogsModule } from '../request-logs/request-logs.module';
import { ResponseCacheModule } from '../response-cache/response-cache.module';
import { RoutingModule } from '../routing/routing.module';
import { ThreadsModule } from '../threads/threads.module';
import { PricingModule } from '../usage/pricing/pricing.module';
import { InvocationService } from './invocation.service';
import { InvocationCache } from './invocation-cache';
import { EmbeddingInvocation } from './invocation-embed';
import { InvocationRecorder } from './invocation-recorder';
import { LiveGradeSampler } from './live-grade-sampler';
import { RoutedCalls } from './routed-calls';
import { TurnWriter } from './turn-writer';

/**
 * The invocation core, with no routes: every surface that calls a model (the spec's invoke
 * endpoints, /v1/chat/completions, /v1/responses) imports this module. It has no controller so
 * that importing it never moves the invoke catch-all route (InvocationModule, imported last).
 */
@Module({
  imports: [
    LimitsModule,
    IdempotencyModule,
    RegistryModule,
    ThreadsModule,
    MessagesModule,
    RequestLogsModule,
    PricingModule,
    ResponseCacheModule,
    // Live graders' sampling: the project's settings (cached) and the job queue.
    ProjectSettingsCoreModule,
    JobsModule,
    // Target health and stickiness of routed calls (docs/routing.md).
    RoutingModule,
    // Timeout and retries of every provider call, from PROVIDER_TIMEOUT_MS / PROVIDER_MAX_RETRIES / PROVIDER_MAX_RETRY_AFTER_S.
    ProvidersModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        timeoutMs: config.providerTimeoutMs,
        maxRetries: config.providerMaxRetries,
        maxRetryAfterSeconds: config.providerMaxRetryAfterSeconds,
        allowedHosts: config.providerAllowedHosts,
      }),
    }),
  ],
  providers: [InvocationService, EmbeddingInvocation, InvocationRecorder, InvocationCache, TurnWriter, LiveGradeSampler, RoutedCalls],
  exports: [InvocationService, EmbeddingInvocation, ProvidersModule],
})
export class InvocationCoreModule {}
