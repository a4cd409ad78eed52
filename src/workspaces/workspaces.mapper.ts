import { ApiKeyEntity } from '../auth/api-key.entity';
import { ApiKeyDto, WorkspaceAdminKeyDto } from './dto/api-key.dto';
import { ProjectDto, WorkspaceDto } from './dto/workspace.dto';
import { ProjectEntity } from './project.entity';
import { WorkspaceEntity } from './workspace.entity';

export const toWorkspaceDto = (w: WorkspaceEntity): WorkspaceDto => ({
  id: w.id,
  slug: w.slug,
  name: w.name,
  createdAt: w.createdAt.toISOString(),
});

export const toProjectDto = (p: ProjectEntity, workspace: WorkspaceEntity): ProjectDto => ({
  id: p.id,
  workspaceId: workspace.id,
  workspace: workspace.slug,
  slug: p.slug,
  name: p.name,
  createdAt: p.createdAt.toISOString(),
});

export const toApiKeyDto = (k: ApiKeyEntity): ApiKeyDto => ({
  id: k.id,
  name: k.name,
  prefix: k.keyPrefix,
  projectId: k.projectId!,
  scopes: k.scopes,
  environments: k.environments,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
});

export const toWorkspaceAdminKeyDto = (k: ApiKeyEntity): WorkspaceAdminKeyDto => ({
  id: k.id,
  name: k.name,
  prefix: k.keyPrefix,
  workspaceId: k.workspaceId!,
  scopes: k.scopes,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
});
