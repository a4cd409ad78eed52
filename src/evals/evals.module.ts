import { Module } from '@nestjs/common';

import { FeedbackModule } from '../feedback/feedback.module';
import { InvocationCoreModule } from '../invocation/invocation-core.module';
import { JobsModule } from '../jobs/jobs.module';
import { MessagesModule } from '../messages/messages.module';
import { RegistryModule } from '../registry/registry.module';
import { RequestLogsModule } from '../request-logs/request-logs.module';
import { PricingModule } from '../usage/pricing/pricing.module';
import { DatasetsController } from './datasets/datasets.controller';
import { DatasetsRepository } from './datasets/datasets.repository';
import { DatasetsService } from './datasets/datasets.service';
import { GradersController } from './graders/graders.controller';
import { GradersRepository } from './graders/graders.repository';
import { GradersService } from './graders/graders.service';
import { Grading } from './graders/grading';
import { LiveGradeWorker } from './live/live-grade-worker';
import { LiveGrading } from './live/live-grading';
import { OpenAICriteriaGrading } from './openai/criteria-grading';
import { OpenAIEvalRunsService } from './openai/openai-eval-runs.service';
import { OpenAIEvalsController } from './openai/openai-evals.controller';
import { OpenAIEvalsRepository } from './openai/openai-evals.repository';
import { OpenAIEvalsService } from './openai/openai-evals.service';
import { EvalRunWorker } from './runs/eval-run-worker';
import { RunTargets } from './runs/run-target';
import { RunsController } from './runs/runs.controller';
import { RunsRepository } from './runs/runs.repository';
import { RunsService } from './runs/runs.service';

/**
 * Evaluations: datasets, graders and experiment runs (docs/evals.md), the live graders' scoring of
 * sampled calls (docs/experiments.md, "Live graders"), and OpenAI's Evals API over them
 * (`/v1/evals`). `Grading` is OpenAICriteriaGrading: Parley's graders as Grading grades them, and
 * OpenAI's testing criteria besides.
 */
@Module({
  imports: [InvocationCoreModule, JobsModule, MessagesModule, RegistryModule, RequestLogsModule, PricingModule, FeedbackModule],
  controllers: [DatasetsController, GradersController, RunsController, OpenAIEvalsController],
  providers: [
    DatasetsRepository,
    DatasetsService,
    GradersRepository,
    GradersService,
    { provide: Grading, useClass: OpenAICriteriaGrading },
    RunTargets,
    RunsRepository,
    RunsService,
    EvalRunWorker,
    LiveGrading,
    LiveGradeWorker,
    OpenAIEvalsRepository,
    OpenAIEvalsService,
    OpenAIEvalRunsService,
  ],
  exports: [DatasetsService, GradersService, RunsService],
})
export class EvalsModule {}
