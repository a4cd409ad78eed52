import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { CryptoModule } from '../common/crypto/crypto.module';
import { ProviderCredentialsModule } from '../provider-credentials/provider-credentials.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { TemplateCache } from '../templates';
import { WebhooksRepository } from '../webhooks/webhooks.repository';
import { WebhooksService } from '../webhooks/webhooks.service';
import { DeploymentEntity } from './deployments/deployment.entity';
import { DeploymentRequestsController } from './deployments/deployment-requests.controller';
import { DeploymentRequestsRepository } from './deployments/deployment-requests.repository';
import { DeploymentRequestsService } from './deployments/deployment-requests.service';
import { DeploymentsController } from './deployments/deployments.controller';
import { DeploymentsRepository } from './deployments/deployments.repository';
import { DeploymentsService } from './deployments/deployments.service';
import { UndeployService } from './deployments/undeploy.service';
import { EnvironmentsModule } from './environments/environments.module';
import { ProviderParametersController } from './parameters/provider-parameters.controller';
import { PromptEntity } from './prompts/prompt.entity';
import { PromptLifecycleController } from './prompts/prompt-lifecycle.controller';
import { PromptLifecycleService } from './prompts/prompt-lifecycle.service';
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
 * Deployment requests enqueue webhook events through the webhooks' outbox (service and repository,
 * stateless), not WebhooksModule: that would bring its dispatcher into every process that deploys,
 * the CLI's included.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([PromptEntity, PromptVersionEntity, DeploymentEntity]),
    EnvironmentsModule,
    ProviderCredentialsModule,
    RegistryCacheModule,
    CryptoModule,
  ],
  controllers: [
    PromptsController,
    PromptLifecycleController,
    DeploymentsController,
    DeploymentRequestsController,
    ProviderParametersController,
  ],
  providers: [
    PromptsRepository,
    VersionsRepository,
    DeploymentsRepository,
    PromptsService,
    VersionsService,
    DeploymentsService,
    UndeployService,
    PromptLifecycleService,
    DeploymentRequestsRepository,
    DeploymentRequestsService,
    WebhooksRepository,
    WebhooksService,
    RegistryService,
    // One compiled template per version id, shared by every resolution of this process.
    { provide: TemplateCache, useFactory: () => new TemplateCache() },
  ],
  exports: [
    RegistryService,
    PromptsService,
    VersionsService,
    DeploymentsService,
    DeploymentRequestsService,
    PromptLifecycleService,
    EnvironmentsModule,
    ProviderCredentialsModule,
  ],
})
export class RegistryModule {}
