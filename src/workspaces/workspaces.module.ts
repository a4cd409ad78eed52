import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { EnvironmentsModule } from '../registry/environments/environments.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { KeyActivityRepository } from './key-activity.repository';
import { ProjectEntity } from './project.entity';
import { ProjectApiKeysController } from './project-api-keys.controller';
import { ProjectDeletionService } from './project-deletion.service';
import { WorkspaceEntity } from './workspace.entity';
import { WorkspaceAdminKeysController } from './workspace-admin-keys.controller';
import { WorkspaceAdminKeysService } from './workspace-admin-keys.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [TypeOrmModule.forFeature([WorkspaceEntity, ProjectEntity]), EnvironmentsModule, RegistryCacheModule],
  controllers: [WorkspacesController, ProjectApiKeysController, WorkspaceAdminKeysController],
  providers: [WorkspacesRepository, WorkspacesService, WorkspaceAdminKeysService, ProjectDeletionService, KeyActivityRepository],
  exports: [WorkspacesService],
})
export class WorkspacesModule {}
