import { Module } from '@nestjs/common';

import { LimitsModule } from '../limits/limits.module';
import { RegistryModule } from '../registry/registry.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { PricingModule } from '../usage/pricing/pricing.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ApplyController } from './apply.controller';
import { ApplyService } from './apply.service';
import { ExportService } from './export.service';

/** parley.yaml in and out: `parley apply` / POST /v2/apply, `parley export` / GET /v2/export. */
@Module({
  imports: [WorkspacesModule, RegistryModule, RegistryCacheModule, LimitsModule, PricingModule],
  controllers: [ApplyController],
  providers: [ApplyService, ExportService],
  exports: [ApplyService, ExportService],
})
export class ApplyModule {}
