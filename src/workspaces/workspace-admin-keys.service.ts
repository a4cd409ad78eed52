import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { ApiKeysService } from '../auth/api-keys.service';
import { Principal } from '../auth/principal';
import { Scope, scopesFor } from '../auth/scopes';
import { notFound } from '../common/errors';
import { isUuid } from '../common/ids';
import { CreateTransaction } from '../idempotency/create-transaction';
import { ApiKeyRevokedDto, CreatedWorkspaceAdminKeyDto, CreateWorkspaceAdminKeyDto, WorkspaceAdminKeyDto } from './dto/api-key.dto';
import { assertManages, assertWithinGrant } from './key-grants';
import { toWorkspaceAdminKeyDto } from './workspaces.mapper';
import { WorkspacesService } from './workspaces.service';

/**
 * Workspace admin keys (docs/security.md, "Workspace admin keys"): admin keys that manage one
 * workspace's projects and keys, so the instance's admin key can stay in a vault. The guard keeps
 * them out of other workspaces' paths; the workspace is looked up here as for any admin route.
 */
@Injectable()
export class WorkspaceAdminKeysService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly keys: ApiKeysService,
  ) {}

  /** In the route's CreateTransaction: an Idempotency-Key's outcome commits with the key (docs/security.md). */
  async create(
    caller: Principal,
    workspaceSlug: string,
    dto: CreateWorkspaceAdminKeyDto,
    tx?: CreateTransaction,
  ): Promise<CreatedWorkspaceAdminKeyDto> {
    const workspace = await this.workspaces.findWorkspace(workspaceSlug);
    if (!workspace) throw notFound('Workspace not found');
    const scopes = scopesFor(dto.preset, dto.scopes);
    assertWithinGrant(caller, scopes);
    const issue = async (manager?: EntityManager) => {
      const issued = await this.keys.issueWorkspaceAdmin(workspace.id, dto.name ?? 'workspace-admin', { scopes }, manager);
      return { ...toWorkspaceAdminKeyDto(issued.entity), key: issued.secret, workspace: workspace.slug };
    };
    return tx ? tx.run(issue) : issue();
  }

  async list(workspaceSlug: string): Promise<WorkspaceAdminKeyDto[]> {
    const workspace = await this.workspaces.findWorkspace(workspaceSlug);
    if (!workspace) throw notFound('Workspace not found');
    return (await this.keys.listForWorkspace(workspace.id)).map(toWorkspaceAdminKeyDto);
  }

  /** As for project keys, a key never revokes one that holds more than itself (docs/security.md, "Managing keys"). */
  async revoke(caller: Principal, workspaceSlug: string, keyId: string): Promise<ApiKeyRevokedDto> {
    const workspace = await this.workspaces.findWorkspace(workspaceSlug);
    if (!workspace) throw notFound('Workspace not found');
    const check = (before: { scopes: Scope[] | null; environments: string[] | null }) => assertManages(caller, before);
    if (!isUuid(keyId) || !(await this.keys.revokeWorkspaceAdmin(workspace.id, keyId, check))) throw notFound('API key not found');
    return { id: keyId, object: 'api_key.revoked', revoked: true };
  }
}
