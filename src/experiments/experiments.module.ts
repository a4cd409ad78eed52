import { Module } from '@nestjs/common';

import { FeedbackModule } from '../feedback/feedback.module';
import { RegistryModule } from '../registry/registry.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { UsageModule } from '../usage/usage.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ExperimentResultsController } from './experiment-results.controller';
import { ExperimentResultsService } from './experiment-results.service';
import { GuardChecker } from './guards/guard-checker';
import { GuardedDeployments } from './guards/guarded-deployments';

/**
 * Live experiments: a deployment's arms side by side, from the usage and feedback rollups, and the
 * guards that stop an arm (docs/experiments.md).
 */
@Module({
  imports: [RegistryModule, UsageModule, FeedbackModule, RegistryCacheModule, WebhooksModule],
  controllers: [ExperimentResultsController],
  providers: [ExperimentResultsService, GuardedDeployments, GuardChecker],
})
export class ExperimentsModule {}
