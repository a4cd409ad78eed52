import { timingSafeEqual } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../audit/audit-log';
import { InstanceAuditLog } from '../audit/instance-audit-log';
import { TtlCache } from '../common/cache/ttl-cache';
import { newId } from '../common/ids';
import { isSlugLike } from '../common/validation';
import { AppConfig } from '../config/app-config';
import { ChangeNotifier } from '../database/changes';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, hashApiKey, KeyKind } from './api-key-secret';
import { ActiveKeyRow, ApiKeysRepository, ProjectRef } from './api-keys.repository';
import { AdminPrincipal, INSTANCE_ADMIN, Principal, ProjectPrincipal } from './principal';
import type { Scope } from './scopes';

/** A key as the audit trail shows it: never its secret or hash. */
const auditView = (key: ApiKeyEntity) => ({
  id: key.id,
  name: key.name,
  prefix: key.keyPrefix,
  scopes: key.scopes,
  environments: key.environments,
});

/** What a new key may do; an absent field is no restriction. */
export interface KeyAccess {
  scopes?: Scope[] | null;
  environments?: string[] | null;
}

/** Sees a live key before it is revoked or re-scoped, inside that change's transaction; throws to refuse it. */
export type KeyCheck = (before: ApiKeyEntity) => void;

export interface IssuedKey {
  entity: ApiKeyEntity;
  /** The secret, returned once to whoever created the key and never stored. */
  secret: string;
}

/**
 * Resolves API keys to principals and issues/revokes keys. Resolutions are cached; a revocation
 * publishes an `api-key` change in its transaction, which every instance hears on commit and drops
 * the key (ChangeNotifier, docs/scaling.md). AUTH_CACHE_TTL_MS (default 5 s) bounds the staleness
 * only when a notification is lost; on the instance that revoked the key, it is refused at once.
 */
@Injectable()
export class ApiKeysService {
  private readonly cache: TtlCache<string, Principal>;
  private readonly envAdminHash: Buffer | null;
  /** Admin keys valid for this process's lifetime only, never stored (see registerEphemeralAdminKey). */
  private readonly ephemeralAdminHashes = new Set<string>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly dataSource: DataSource,
    private readonly changes: ChangeNotifier,
    private readonly audit: AuditLog,
    private readonly instanceAudit: InstanceAuditLog,
    config: AppConfig,
  ) {
    this.cache = new TtlCache(config.authCacheTtlMs);
    changes.subscribe({
      onChange: (change) => {
        if (change.kind === 'api-key') this.forget(change.keyId);
      },
      onFlush: () => this.cache.clear(),
    });
    this.envAdminHash = config.adminKey ? Buffer.from(hashApiKey(config.adminKey), 'hex') : null;
  }

  async resolve(secret: string): Promise<Principal | null> {
    const hash = hashApiKey(secret);
    if (this.envAdminHash && timingSafeEqual(Buffer.from(hash, 'hex'), this.envAdminHash)) {
      return INSTANCE_ADMIN(null, 'PARLEY_ADMIN_KEY');
    }
    if (this.ephemeralAdminHashes.has(hash)) return INSTANCE_ADMIN(null, 'server.json (local CLI)');
    // Calls that miss together (an entry expiring under load) share one read; unknown keys are not kept.
    return this.cache.getOrLoad(hash, () => this.load(hash));
  }

  /**
   * The principal of a live stored key, by id, uncached: a console session stands for its key and
   * ends with it (docs/console.md).
   */
  async resolveKeyId(keyId: string): Promise<Principal | null> {
    return this.principalOf(await this.keys.findActiveById(keyId));
  }

  /**
   * The admin key `admin` acting in the project `<workspace>/<project>` (the X-Parley-Project
   * header): a project principal with the admin key's identity, scopes and environments. Null when
   * there is no such project, or it is in a workspace this admin key does not reach.
   */
  async actingIn(admin: AdminPrincipal, target: string): Promise<ProjectPrincipal | null> {
    const project = await this.projectNamed(target);
    if (!project) return null;
    if (admin.workspaceSlug !== null && admin.workspaceSlug !== project.workspace_slug) return null;
    return {
      kind: 'project',
      actingAdmin: true,
      keyId: admin.keyId,
      keyName: admin.keyName,
      scopes: admin.scopes,
      environments: admin.environments,
      projectId: project.project_id,
      projectSlug: project.project_slug,
      workspaceId: project.workspace_id,
      workspaceSlug: project.workspace_slug,
    };
  }

  /** The project `<workspace>/<project>` names (X-Parley-Project), or null. */
  async projectNamed(target: string): Promise<ProjectRef | null> {
    const [workspaceSlug, projectSlug, ...rest] = target.split('/');
    if (rest.length > 0 || !isSlugLike(workspaceSlug) || !isSlugLike(projectSlug ?? '')) return null;
    return this.keys.findProject(workspaceSlug, projectSlug);
  }

  private async load(hash: string): Promise<Principal | null> {
    return this.principalOf(await this.keys.findActiveByHash(hash));
  }

  private principalOf(row: ActiveKeyRow | null): Principal | null {
    if (!row) return null;
    const access = { keyName: row.name, scopes: row.scopes, environments: row.environments };
    const principal: Principal = row.project_id
      ? {
          ...access,
          kind: 'project',
          keyId: row.id,
          projectId: row.project_id,
          projectSlug: row.project_slug!,
          workspaceId: row.workspace_id!,
          workspaceSlug: row.workspace_slug!,
        }
      : { kind: 'admin', keyId: row.id, workspaceId: row.workspace_id, workspaceSlug: row.workspace_slug, ...access };
    return principal;
  }

  /**
   * Accepts `secret` as an admin key until the process exits. The server registers one at start and
   * writes it to DATA_DIR/server.json (mode 0600), so a CLI on the same machine that finds DATA_DIR
   * locked can apply through the server without the user passing a key.
   */
  registerEphemeralAdminKey(secret: string): void {
    this.ephemeralAdminHashes.add(hashApiKey(secret));
  }

  issue(kind: KeyKind, projectId: string | null, name: string, access: KeyAccess = {}, manager?: EntityManager): Promise<IssuedKey> {
    return this.insertKey(kind, projectId, null, name, access, manager);
  }

  /** An admin key limited to one workspace (docs/security.md, "Workspace admin keys"). */
  issueWorkspaceAdmin(workspaceId: string, name: string, access: KeyAccess = {}, manager?: EntityManager): Promise<IssuedKey> {
    return this.insertKey('admin', null, workspaceId, name, access, manager);
  }

  listForWorkspace(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.keys.listForWorkspace(workspaceId);
  }

  /** Revokes a workspace admin key of this workspace; false when there is no such live key. */
  /** `check` sees the live key before it is revoked, and refuses by throwing (as for project keys). */
  async revokeWorkspaceAdmin(workspaceId: string, keyId: string, check: KeyCheck): Promise<boolean> {
    const revoked = await this.dataSource.transaction(async (manager) => {
      const before = await this.keys.findWorkspaceAdmin(workspaceId, keyId, manager);
      if (before && !before.revokedAt) check(before);
      const changed = await this.keys.revokeInWorkspace(workspaceId, keyId, new Date(), manager);
      if (changed) {
        await this.changes.publish({ kind: 'api-key', keyId }, manager);
        await this.instanceAudit.record(manager, {
          workspaceId,
          action: 'admin_key.revoked',
          resourceType: 'admin_key',
          resourceId: keyId,
          before: auditView(before!),
          after: null,
        });
      }
      return changed;
    });
    if (revoked) this.forget(keyId);
    return revoked;
  }

  private insertKey(
    kind: KeyKind,
    projectId: string | null,
    workspaceId: string | null,
    name: string,
    access: KeyAccess,
    manager?: EntityManager,
  ): Promise<IssuedKey> {
    const { secret, hash, prefix } = generateApiKey(kind);
    const entity = Object.assign(new ApiKeyEntity(), {
      id: newId(),
      projectId,
      workspaceId,
      name,
      keyHash: hash,
      keyPrefix: prefix,
      createdAt: new Date(),
      revokedAt: null,
      scopes: access.scopes ?? null,
      environments: access.environments ?? null,
    });
    // Stored with its audit event, in the caller's transaction when given: a project key on its
    // project's trail, an admin key (the instance's or a workspace's) on the instance's.
    const store = async (m: EntityManager) => {
      const saved = await this.keys.insert(entity, m);
      if (projectId) {
        await this.audit.record(m, {
          projectId,
          action: 'api_key.created',
          resourceType: 'api_key',
          resourceId: saved.id,
          after: auditView(saved),
        });
      } else {
        await this.instanceAudit.record(m, {
          workspaceId,
          action: 'admin_key.created',
          resourceType: 'admin_key',
          resourceId: saved.id,
          after: auditView(saved),
        });
      }
      return { entity: saved, secret };
    };
    return manager ? store(manager) : this.dataSource.transaction(store);
  }

  listForProject(projectId: string): Promise<ApiKeyEntity[]> {
    return this.keys.listForProject(projectId);
  }

  /** `check` sees the key before the change, in its transaction, and may refuse it by throwing. */
  async revoke(projectId: string, keyId: string, check?: KeyCheck): Promise<boolean> {
    const revoked = await this.dataSource.transaction(async (manager) => {
      const before = await this.keys.findInProject(projectId, keyId, manager);
      if (before && !before.revokedAt) check?.(before);
      const changed = await this.keys.revoke(projectId, keyId, new Date(), manager);
      if (changed) {
        await this.changes.publish({ kind: 'api-key', keyId }, manager);
        await this.audit.record(manager, {
          projectId,
          action: 'api_key.revoked',
          resourceType: 'api_key',
          resourceId: keyId,
          before: auditView(before!),
          after: null,
        });
      }
      return changed;
    });
    if (revoked) this.forget(keyId);
    return revoked;
  }

  /** Replaces a project key's scopes and environments; null when the project has no such live key. */
  async setAccess(projectId: string, keyId: string, access: KeyAccess, check?: KeyCheck): Promise<ApiKeyEntity | null> {
    const updated = await this.dataSource.transaction(async (manager) => {
      const before = await this.keys.findInProject(projectId, keyId, manager);
      if (before && !before.revokedAt) check?.(before);
      const key = await this.keys.setAccess(
        projectId,
        keyId,
        { scopes: access.scopes ?? null, environments: access.environments ?? null },
        manager,
      );
      if (key) {
        await this.changes.publish({ kind: 'api-key', keyId }, manager);
        await this.audit.record(manager, {
          projectId,
          action: 'api_key.access_changed',
          resourceType: 'api_key',
          resourceId: keyId,
          before: auditView(before!),
          after: auditView(key),
        });
      }
      return key;
    });
    if (updated) this.forget(keyId);
    return updated;
  }

  private forget(keyId: string): void {
    this.cache.deleteWhere((principal) => principal.keyId === keyId);
  }

  /** Drops keys that were deleted (a project's, with it): at once here; other instances on the commit's `api-key` notifications. */
  forgetKeys(keyIds: readonly string[]): void {
    const ended = new Set(keyIds);
    if (ended.size > 0) this.cache.deleteWhere((principal) => principal.keyId !== null && ended.has(principal.keyId));
  }

  hasAdminKey(): Promise<boolean> {
    return this.envAdminHash ? Promise.resolve(true) : this.keys.countAdminKeys().then((n) => n > 0);
  }
}
