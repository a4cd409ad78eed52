import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ProviderCredentialsModule } from '../provider-credentials/provider-credentials.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { TemplateCache } from '../templates';
import { DeploymentEntity } from './deployments/deployment.entity';
import { DeploymentsController } from './deployments/deployments.controller';
import { DeploymentsRepository } from './deployments/deployments.repository';
import { DeploymentsService } from './deployments/deployments.service';
import { EnvironmentsModule } from './environments/environments.module';
import { PromptEntity } from './prompts/prompt.entity';
import { PromptVersionEntity } from './prompts/prompt-version.entity';
import { PromptsController } from './prompts/prompts.controller';
import { PromptsRepository } from './prompts/prompts.repository';
import { PromptsService } from './prompts/prompts.service';
import { VersionsRepository } from './prompts/versions.repository';
import { VersionsService } from './prompts/versions.service';
import { RegistryService } from './registry.service';

/**
 * Prompts and assistants, their versions and deployments (environments and provider credentials
 * are modules of their own, re-exported here). Invocation imports this module for RegistryService.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([PromptEntity, PromptVersionEntity, DeploymentEntity]),
    EnvironmentsModule,
    ProviderCredentialsModule,
    RegistryCacheModule,
  ],
  controllers: [PromptsController, DeploymentsController],
  providers: [
    PromptsRepository,
    VersionsRepository,
    DeploymentsRepository,
    PromptsService,
    VersionsService,
    DeploymentsService,
    RegistryService,
    // One compiled template per version id, shared by every resolution of this process.
    { provide: TemplateCache, useFactory: () => new TemplateCache() },
  ],
  exports: [RegistryService, PromptsService, VersionsService, DeploymentsService, EnvironmentsModule, ProviderCredentialsModule],
})
export class RegistryModule {}
