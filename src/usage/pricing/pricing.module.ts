import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { PriceOverrideEntity } from './price-override.entity';
import { PriceOverridesRepository } from './price-overrides.repository';
import { PricesService } from './prices.service';

/** Prices and costs, without routes: the invocation core prices every call with it (docs/usage.md). */
@Module({
  imports: [TypeOrmModule.forFeature([PriceOverrideEntity])],
  providers: [PriceOverridesRepository, PricesService],
  exports: [PricesService],
})
export class PricingModule {}
