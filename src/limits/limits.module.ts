import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BudgetsController } from './budgets.controller';
import { LimitSettingEntity } from './limit-setting.entity';
import { LimitSettingsService } from './limit-settings.service';
import { LimitsController } from './limits.controller';
import { LimitsRepository } from './limits.repository';
import { LimitsService } from './limits.service';

@Module({
  imports: [TypeOrmModule.forFeature([LimitSettingEntity]), WorkspacesModule],
  controllers: [LimitsController, BudgetsController],
  providers: [LimitsRepository, LimitsService, LimitSettingsService],
  exports: [LimitsService, LimitSettingsService],
})
export class LimitsModule {}
