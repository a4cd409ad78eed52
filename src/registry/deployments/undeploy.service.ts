import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { notFound } from '../../common/errors';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { EnvironmentEntity } from '../environments/environment.entity';
import { EnvironmentsService } from '../environments/environments.service';
import { PromptEntity } from '../prompts/prompt.entity';
import { PromptsService } from '../prompts/prompts.service';
import { VersionsRepository } from '../prompts/versions.repository';
import { isSlugLike } from '../slugs';
import { deploymentRowOf } from './deploy-body';
import { DeploymentEntity } from './deployment.entity';
import { toDeploymentDto } from './deployments.mapper';
import { DeploymentsRepository } from './deployments.repository';
import { DeploymentDto } from './dto/deployment.dto';

/** An undeploy checked against the database (UndeployService.prepare), under the prompt's row lock. */
export interface PreparedUndeploy {
  prompt: PromptEntity;
  environment: EnvironmentEntity;
  /** The environment's current deployment, which undeploying ends. */
  current: DeploymentEntity;
}

export const notDeployedIn = (environment: string) => `No deployment in ${environment}`;

/**
 * Undeploying an environment (docs/registry.md, "Undeploying"): its current deployment is marked
 * replaced with nothing after it, so the history keeps it and a call there is the 404 of an
 * environment never deployed to. Audited (`deployment.removed`) and announced to every instance's
 * registry cache in the same transaction. A protected environment holds it for approval first
 * (DeploymentRequestsService.undeploy), as it holds a deploy.
 */
@Injectable()
export class UndeployService {
  constructor(
    private readonly audit: AuditLog,
    private readonly prompts: PromptsService,
    private readonly versions: VersionsRepository,
    private readonly environments: EnvironmentsService,
    private readonly deployments: DeploymentsRepository,
    private readonly cache: RegistryCache,
  ) {}

  /** The 404s of an unknown prompt, environment, or an environment with nothing deployed; takes the prompt's row lock. */
  async prepare(manager: EntityManager, projectId: string, slug: string, environmentSlug: string): Promise<PreparedUndeploy> {
    const prompt = await this.prompts.require(projectId, slug, manager);
    await this.prompts.lock(manager, prompt);
    const environment = isSlugLike(environmentSlug) ? await this.environments.findBySlug(projectId, environmentSlug, manager) : null;
    if (!environment) throw notFound('Environment not found');
    const current = await this.deployments.findCurrent(manager, projectId, prompt.id, environment.id);
    if (!current) throw notFound(notDeployedIn(environment.slug));
    return { prompt, environment, current };
  }

  /** Ends the current deployment in `manager`'s transaction; the caller invalidates this instance's cache once it commits. */
  async write(manager: EntityManager, { prompt, environment, current }: PreparedUndeploy): Promise<DeploymentDto> {
    const now = new Date();
    await this.deployments.markReplaced(manager, prompt.projectId, current.id, now);
    current.replacedAt = now;
    const version = (await this.versions.findById(prompt.projectId, current.versionId, manager))!;
    await this.audit.record(manager, {
      projectId: prompt.projectId,
      action: 'deployment.removed',
      resourceType: 'deployment',
      resourceId: `${prompt.slug}@${environment.slug}`,
      before: {
        prompt: prompt.slug,
        environment: environment.slug,
        version: version.version,
        versionId: version.id,
        deploymentVersion: current.deploymentVersion,
        ...(current.split ? { split: current.split } : {}),
        ...(current.guards ? { guards: current.guards } : {}),
      },
      after: null,
    });
    await this.cache.announce(prompt.projectId, manager);
    return toDeploymentDto(deploymentRowOf(current, prompt, environment, version));
  }
}
