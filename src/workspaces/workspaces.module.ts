import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { EnvironmentsModule } from '../registry/environments/environments.module';
import { ProjectEntity } from './project.entity';
import { ProjectApiKeysController } from './project-api-keys.controller';
import { WorkspaceEntity } from './workspace.entity';
import { WorkspaceAdminKeysController } from './workspace-admin-keys.controller';
import { WorkspaceAdminKeysService } from './workspace-admin-keys.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [TypeOrmModule.forFeature([WorkspaceEntity, ProjectEntity]), EnvironmentsModule],
  controllers: [WorkspacesController, ProjectApiKeysController, WorkspaceAdminKeysController],
  providers: [WorkspacesRepository, WorkspacesService, WorkspaceAdminKeysService],
  exports: [WorkspacesService],
})
export class WorkspacesModule {}
