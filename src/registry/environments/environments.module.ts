import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { RegistryCacheModule } from '../../registry-cache/registry-cache';
import { EnvironmentEntity } from './environment.entity';
import { EnvironmentDeletionService } from './environment-deletion.service';
import { EnvironmentGateService } from './environment-gate.service';
import { EnvironmentGates } from './environment-gates';
import { EnvironmentProtectionService } from './environment-protection.service';
import { EnvironmentsController } from './environments.controller';
import { EnvironmentsRepository } from './environments.repository';
import { EnvironmentsService } from './environments.service';

/** Separate from the registry so WorkspacesModule can seed a new project's environments without a cycle. */
@Module({
  imports: [TypeOrmModule.forFeature([EnvironmentEntity]), RegistryCacheModule],
  controllers: [EnvironmentsController],
  providers: [
    EnvironmentsRepository,
    EnvironmentsService,
    EnvironmentGates,
    EnvironmentGateService,
    EnvironmentProtectionService,
    EnvironmentDeletionService,
  ],
  exports: [EnvironmentsService, EnvironmentGates, EnvironmentDeletionService],
})
export class EnvironmentsModule {}
