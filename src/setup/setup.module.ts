import { Module } from '@nestjs/common';

import { ApplyModule } from '../apply/apply.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { InitService } from './init.service';

@Module({
  imports: [WorkspacesModule, ApplyModule],
  providers: [InitService],
  exports: [InitService],
})
export class SetupModule {}
