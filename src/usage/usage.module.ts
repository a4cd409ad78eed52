import { Module } from '@nestjs/common';

import { WorkspacesModule } from '../workspaces/workspaces.module';
import { OpenAIUsageController } from './openai-usage.controller';
import { OpenAIUsageService } from './openai-usage.service';
import { PriceSettingsService } from './pricing/price-settings.service';
import { PricesController } from './pricing/prices.controller';
import { PricingModule } from './pricing/pricing.module';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';
import { UsageRetentionService } from './usage-retention.service';

/** Usage reports and price overrides (docs/usage.md); UsageRepository is what per-arm results read (docs/experiments.md). */
@Module({
  imports: [PricingModule, WorkspacesModule],
  controllers: [UsageController, PricesController, OpenAIUsageController],
  providers: [UsageRepository, UsageService, UsageRetentionService, PriceSettingsService, OpenAIUsageService],
  exports: [UsageRepository],
})
export class UsageModule {}
