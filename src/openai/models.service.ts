import { Injectable } from '@nestjs/common';
import type { Model } from 'openai/resources/models';

import { ProjectPrincipal } from '../auth/principal';
import { InvocationService } from '../invocation/invocation.service';
import { ProviderCredentialsService } from '../provider-credentials/provider-credentials.service';
import { LOCAL_EMBEDDING_MODEL, LOCAL_MODELS } from '../providers';
import { DeploymentsService } from '../registry/deployments/deployments.service';
import { RegistryService } from '../registry/registry.service';
import { deploymentModelId, targetOfModel } from './model-name';
import { modelNotFound } from './request-errors';

const seconds = (at: Date | string | null | undefined) => (at ? Math.floor(new Date(at).getTime() / 1000) : 0);

/**
 * `/v1/models`: the project's current deployments as `slug@environment`, then its providers'
 * models as `provider/model`: `local/echo`, `local/embed` (embeddings), and each model a deployed version calls through one of
 * the project's provider credentials (Parley does not ask upstreams for their catalogues).
 */
@Injectable()
export class ModelsService {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly registry: RegistryService,
    private readonly credentials: ProviderCredentialsService,
    private readonly invocation: InvocationService,
  ) {}

  async list(caller: ProjectPrincipal): Promise<{ object: 'list'; data: Model[] }> {
    const owner = `${caller.workspaceSlug}/${caller.projectSlug}`;
    const rows = await this.deployments.currentRows(caller.projectId);
    const credentials = new Map((await this.credentials.list(caller.projectId)).map((c) => [c.name, seconds(c.createdAt)]));
    const deployments: Model[] = rows.map((row) => ({
      id: deploymentModelId(row.slug, row.environment),
      object: 'model',
      created: seconds(row.deployed_at),
      owned_by: owner,
    }));
    const providerModels = new Map<string, Model>(
      [...LOCAL_MODELS, LOCAL_EMBEDDING_MODEL].map((m) => [
        `local/${m}`,
        { id: `local/${m}`, object: 'model', created: 0, owned_by: 'local' },
      ]),
    );
    for (const row of rows) {
      // A deployment whose provider credential was deleted is listed, but names no provider model.
      const resolved = await this.registry.resolveForInvoke(caller.projectId, row.slug, row.environment).catch(() => null);
      if (!resolved) continue;
      const id = `${resolved.provider.name}/${resolved.model}`;
      if (!providerModels.has(id))
        providerModels.set(id, {
          id,
          object: 'model',
          created: credentials.get(resolved.provider.name) ?? 0,
          owned_by: resolved.provider.name,
        });
    }
    return { object: 'list', data: [...deployments, ...[...providerModels.values()].sort((a, b) => (a.id < b.id ? -1 : 1))] };
  }

  /** A listed model, or any `provider/model` of a provider the project has (every model of it can be called). */
  async retrieve(caller: ProjectPrincipal, id: string): Promise<Model> {
    const listed = (await this.list(caller)).data.find((m) => m.id === id);
    if (listed) return listed;
    const named = targetOfModel(id);
    const target = named?.type === 'provider' ? await this.invocation.resolve(caller, named) : null;
    if (!target) throw modelNotFound(id);
    return { id, object: 'model', created: 0, owned_by: target.provider.name };
  }
}
