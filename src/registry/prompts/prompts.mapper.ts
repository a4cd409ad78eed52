import { DeploymentRow } from '../deployments/deployments.repository';
import { PromptDto } from './dto/prompt.dto';
import { VersionDto } from './dto/version.dto';
import { PromptEntity } from './prompt.entity';
import { PromptVersionEntity } from './prompt-version.entity';

const iso = (value: Date | string) => new Date(value).toISOString();

export const toPromptDto = (p: PromptEntity, current: DeploymentRow[]): PromptDto => ({
  id: p.id,
  slug: p.slug,
  kind: p.kind,
  latestVersion: p.lastVersion > 0 ? p.lastVersion : null,
  deployments: current
    .filter((d) => d.prompt_id === p.id)
    .map((d) => ({
      environment: d.environment,
      version: Number(d.version),
      deploymentVersion: Number(d.deployment_version),
      deployedAt: iso(d.deployed_at),
    })),
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
  archivedAt: p.archivedAt ? p.archivedAt.toISOString() : null,
});

export const toVersionDto = (v: PromptVersionEntity, p: Pick<PromptEntity, 'slug' | 'kind'>): VersionDto => ({
  id: v.id,
  promptId: v.promptId,
  slug: p.slug,
  kind: p.kind,
  version: v.version,
  contentHash: v.contentHash,
  template: v.template,
  provider: v.provider,
  model: v.model,
  parameters: v.parameters,
  tools: v.tools,
  variables: v.variables,
  declaredVariables: v.declaredVariables,
  ...(v.routing ? { routing: v.routing } : {}),
  ...(v.responseCache ? { cache: v.responseCache } : {}),
  message: v.message,
  createdAt: v.createdAt.toISOString(),
});
