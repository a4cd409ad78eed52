import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { ProjectSettingsController } from './project-settings.controller';
import { ProjectSettingsEntity } from './project-settings.entity';
import { ProjectSettingsService } from './project-settings.service';

/** A project's settings (docs/embeddings.md, "Project settings"). */
@Module({
  imports: [TypeOrmModule.forFeature([ProjectSettingsEntity]), RegistryCacheModule],
  controllers: [ProjectSettingsController],
  providers: [ProjectSettingsService],
  exports: [ProjectSettingsService],
})
export class ProjectSettingsModule {}
