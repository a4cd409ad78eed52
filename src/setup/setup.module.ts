import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { InitService } from './init.service';

@Module({
  imports: [WorkspacesModule],
  providers: [InitService],
  exports: [InitService],
})
export class SetupModule {}
