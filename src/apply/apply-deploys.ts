import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { badRequest, forbidden } from '../common/errors';
import { Requester } from '../registry/deployments/deployment-requests.repository';
import { DeploymentRequestsService } from '../registry/deployments/deployment-requests.service';
import { DeploymentsService, PreparedDeploy } from '../registry/deployments/deployments.service';
import { StickyBy } from '../registry/deployments/split';
import { EnvironmentEntity } from '../registry/environments/environment.entity';
import { PromptEntity } from '../registry/prompts/prompt.entity';
import { PromptVersionEntity } from '../registry/prompts/prompt-version.entity';
import { VersionsService } from '../registry/prompts/versions.service';
import type { ApplyReferences } from './apply-file.parser';
import { DeclaredPrompt, DeclaredSplitDeploy, FILE_VERSION, INVALID_FILE } from './apply-file.schema';
import { DeploymentAction, DeploymentRequestAction } from './apply-summary';

/** Who deploys: whether they hold the deploy scope, and who a protected environment's request names. */
export interface ApplyDeployer {
  mayDeploy: boolean;
  requester: Requester;
}

/** What a prompt's deploy entries did: deployed (or found current), or held for approval. */
export interface AppliedDeploys {
  deployments: DeploymentAction[];
  requests: DeploymentRequestAction[];
}

/**
 * A prompt's `deploy` entries, applied to the version whose content the file holds. An entry that
 * would change an environment needs the deploy scope; in an environment that requires approval it
 * becomes a pending deployment request (or finds the identical one pending), and where keys are
 * barred a key is refused (docs/security.md, "Approvals"; docs/apply.md).
 */
@Injectable()
export class ApplyDeploys {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly versions: VersionsService,
    private readonly requests: DeploymentRequestsService,
  ) {}

  /** The caller holds the prompt's row lock (PromptsService.lock); every environment exists. */
  async deploy(
    manager: EntityManager,
    target: { prompt: PromptEntity; version: PromptVersionEntity; index: number; deploy: DeclaredPrompt['deploy'] },
    environments: Map<string, EnvironmentEntity>,
    describe: ApplyReferences['describe'],
    deployer: ApplyDeployer,
  ): Promise<AppliedDeploys> {
    const { prompt, version } = target;
    const actions: DeploymentAction[] = [];
    const requests: DeploymentRequestAction[] = [];
    /** The entry held for approval (recorded in `requests`), or false: deploy it. */
    const held = async (prepared: Omit<PreparedDeploy, 'changes'>, extra: Partial<DeploymentRequestAction> = {}) => {
      const changes = await this.deployments.changes(manager, prepared.prompt, prepared.environment, prepared.version, prepared.split);
      if (!changes) return false;
      if (!deployer.mayDeploy) {
        throw forbidden(
          `Deploying "${prompt.slug}" to "${prepared.environment.slug}" needs the deploy scope (registry:write alone does not deploy)`,
        );
      }
      const hold = await this.requests.holdIfProtected(manager, { ...prepared, changes }, deployer.requester);
      if (!hold) return false;
      requests.push({
        id: hold.request.id,
        slug: prompt.slug,
        environment: prepared.environment.slug,
        version: prepared.version.version,
        action: hold.created ? 'created' : 'unchanged',
        ...extra,
      });
      return true;
    };
    for (const [j, entry] of target.deploy.entries()) {
      if (typeof entry === 'string') {
        if (await held({ prompt, environment: environments.get(entry)!, version, split: null })) continue;
        const { deployment, changed } = await this.deployments.deployLocked(manager, prompt, environments.get(entry)!, version);
        actions.push({
          slug: prompt.slug,
          environment: entry,
          version: version.version,
          deploymentVersion: deployment.deploymentVersion,
          action: changed ? 'deployed' : 'unchanged',
        });
        continue;
      }
      const versions = await this.armVersions(manager, target, j, entry, describe);
      const number = (v: number | typeof FILE_VERSION) => (v === FILE_VERSION ? version.version : v);
      const split = {
        arms: entry.split.map((arm) => ({ version: number(arm.version), weight: arm.weight })),
        stickyBy: entry.stickyBy as StickyBy,
        rules: entry.rules.map((rule) => ({ ...rule, version: number(rule.version) })),
        guards: entry.guards?.length ? entry.guards : null,
      };
      const environment = environments.get(entry.environment)!;
      if (await held({ prompt, environment, version: versions[0], split: { ...split, versions } }, { split: split.arms })) continue;
      const { deployment, changed } = await this.deployments.deployLocked(manager, prompt, environment, versions[0], {
        ...split,
        versions,
      });
      actions.push({
        slug: prompt.slug,
        environment: entry.environment,
        version: versions[0].version,
        deploymentVersion: deployment.deploymentVersion,
        action: changed ? 'deployed' : 'unchanged',
        split: split.arms,
        stickyBy: split.stickyBy,
        rules: split.rules,
        ...(split.guards ? { guards: split.guards } : {}),
      });
    }
    return { deployments: actions, requests };
  }

  /** Each arm's version; a number that is also the file's version, which another arm names "file", is refused (each version once). */
  private async armVersions(
    manager: EntityManager,
    { prompt, version, index }: { prompt: PromptEntity; version: PromptVersionEntity; index: number },
    j: number,
    entry: DeclaredSplitDeploy,
    describe: ApplyReferences['describe'],
  ): Promise<PromptVersionEntity[]> {
    const fileArm = entry.split.findIndex((arm) => arm.version === FILE_VERSION);
    const versions: PromptVersionEntity[] = [];
    for (const [k, arm] of entry.split.entries()) {
      const path = ['prompts', index, 'deploy', j, 'split', k, 'version'];
      if (arm.version === FILE_VERSION || arm.version === version.version) {
        if (arm.version !== FILE_VERSION && fileArm >= 0) {
          const message = `version ${arm.version} is this file's content, which split[${fileArm}] already names as "${FILE_VERSION}": each version once`;
          throw badRequest(INVALID_FILE, [describe(path, message)]);
        }
        versions.push(version);
        continue;
      }
      // The references were checked against the prompt's versions, which are never deleted.
      const found = await this.versions.findByNumber(prompt.projectId, prompt.id, arm.version, manager);
      if (!found) throw badRequest(INVALID_FILE, [describe(path, `"${prompt.slug}" has no version ${arm.version}`)]);
      versions.push(found);
    }
    return versions;
  }
}
