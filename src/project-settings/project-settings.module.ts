import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { ProjectSettingsController } from './project-settings.controller';
import { ProjectSettingsEntity } from './project-settings.entity';
import { ProjectSettingsService } from './project-settings.service';

/**
 * The settings as calls read them, with no routes: the invocation core imports this one, so that
 * importing it never moves the routes (as InvocationCoreModule does not).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ProjectSettingsEntity]), RegistryCacheModule],
  providers: [ProjectSettingsService],
  exports: [ProjectSettingsService],
})
export class ProjectSettingsCoreModule {}

/** A project's settings (docs/embeddings.md, "Project settings"; docs/experiments.md, "Live graders"). */
@Module({
  imports: [ProjectSettingsCoreModule],
  controllers: [ProjectSettingsController],
  exports: [ProjectSettingsCoreModule],
})
export class ProjectSettingsModule {}
