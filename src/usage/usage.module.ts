import { Module } from '@nestjs/common';
import { PricingModule } from './pricing/pricing.module';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageRetentionService } from './usage-retention.service';
import { UsageService } from './usage.service';

/** Usage reports and prices (docs/usage.md). */
@Module({
  imports: [PricingModule],
  controllers: [UsageController],
  providers: [UsageRepository, UsageService, UsageRetentionService],
})
export class UsageModule {}
