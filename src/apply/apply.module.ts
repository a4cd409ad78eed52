import { Module } from '@nestjs/common';

import { DatasetsRepository } from '../evals/datasets/datasets.repository';
import { GradersRepository } from '../evals/graders/graders.repository';
import { GradersService } from '../evals/graders/graders.service';
import { LimitsModule } from '../limits/limits.module';
import { RegistryModule } from '../registry/registry.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { PricingModule } from '../usage/pricing/pricing.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ApplyController } from './apply.controller';
import { ApplyService } from './apply.service';
import { ApplyDeploys } from './apply-deploys';
import { ApplyEvals } from './apply-evals';
import { ExportService } from './export.service';
import { ExportEvals } from './export-evals';

/**
 * parley.yaml in and out: `parley apply` / POST /v2/apply, `parley export` / GET /v2/export.
 * Graders and datasets through their repositories (stateless), not EvalsModule: that would bring
 * the experiment runs' worker into every process that applies a file, the CLI's included.
 */
@Module({
  imports: [WorkspacesModule, RegistryModule, RegistryCacheModule, LimitsModule, PricingModule],
  controllers: [ApplyController],
  providers: [ApplyService, ExportService, ApplyEvals, ApplyDeploys, ExportEvals, DatasetsRepository, GradersRepository, GradersService],
  exports: [ApplyService, ExportService],
})
export class ApplyModule {}
