import { Injectable } from '@nestjs/common';

import { ApiException } from '../common/errors';
import { RegistryService } from '../registry';
import { DeploymentsService } from '../registry/deployments/deployments.service';
import { LangtailDeployment, PlaygroundState, toLangtailDeployment, toPlaygroundState } from './langtail.mapper';

/** The two read calls of the langtail SDK that have no counterpart in Parley's own API (README.md, "The langtail SDK"). */
@Injectable()
export class LangtailService {
  constructor(
    private readonly registry: RegistryService,
    private readonly deployments: DeploymentsService,
  ) {}

  /** What `slug` runs in `environment` (or version `v`), in the SDK's PlaygroundState shape. */
  async promptConfig(projectId: string, slug: string, environment: string, version?: number): Promise<PlaygroundState> {
    const resolved = await this.registry.resolveForInvoke(projectId, slug, environment, version);
    // The invoke endpoints' own 404 body for the same condition.
    if (!resolved) throw new ApiException(404, { error: 'Prompt deployment not found' });
    return toPlaygroundState(resolved);
  }

  async listDeployments(projectId: string): Promise<{ deployments: LangtailDeployment[] }> {
    const { data } = await this.deployments.listCurrent(projectId, {});
    return { deployments: data.map(toLangtailDeployment) };
  }
}
