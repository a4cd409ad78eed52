import { Module } from '@nestjs/common';

import { FeedbackModule } from '../feedback/feedback.module';
import { RegistryModule } from '../registry/registry.module';
import { UsageModule } from '../usage/usage.module';
import { ExperimentResultsController } from './experiment-results.controller';
import { ExperimentResultsService } from './experiment-results.service';

/** Live experiments' results: a deployment's arms side by side, from the usage and feedback rollups (docs/experiments.md). */
@Module({
  imports: [RegistryModule, UsageModule, FeedbackModule],
  controllers: [ExperimentResultsController],
  providers: [ExperimentResultsService],
})
export class ExperimentsModule {}
