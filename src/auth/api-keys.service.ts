import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { TtlCache } from '../common/cache/ttl-cache';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, hashApiKey, KeyKind } from './api-key-secret';
import { ApiKeysRepository } from './api-keys.repository';
import { Principal } from './principal';

export interface IssuedKey {
  entity: ApiKeyEntity;
  /** The secret, returned once to whoever created the key and never stored. */
  secret: string;
}

/**
 * Resolves API keys to principals and issues/revokes keys. Resolutions are cached for
 * AUTH_CACHE_TTL_MS (default 5 s): a key revoked on another instance stops working within that
 * bound; on the instance that revoked it, at once.
 */
@Injectable()
export class ApiKeysService {
  private readonly cache: TtlCache<string, Principal>;
  private readonly envAdminHash: Buffer | null;
  /** Admin keys valid for this process's lifetime only, never stored (see registerEphemeralAdminKey). */
  private readonly ephemeralAdminHashes = new Set<string>();

  constructor(
    private readonly keys: ApiKeysRepository,
    config: AppConfig,
  ) {
    this.cache = new TtlCache(config.authCacheTtlMs);
    this.envAdminHash = config.adminKey ? Buffer.from(hashApiKey(config.adminKey), 'hex') : null;
  }

  async resolve(secret: string): Promise<Principal | null> {
    const hash = hashApiKey(secret);
    if (this.envAdminHash && timingSafeEqual(Buffer.from(hash, 'hex'), this.envAdminHash)) {
      return { kind: 'admin', keyId: null };
    }
    if (this.ephemeralAdminHashes.has(hash)) return { kind: 'admin', keyId: null };
    const cached = this.cache.get(hash);
    if (cached) return cached;
    const row = await this.keys.findActiveByHash(hash);
    if (!row) return null;
    const principal: Principal = row.project_id
      ? {
          kind: 'project',
          keyId: row.id,
          projectId: row.project_id,
          projectSlug: row.project_slug!,
          workspaceId: row.workspace_id!,
          workspaceSlug: row.workspace_slug!,
        }
      : { kind: 'admin', keyId: row.id };
    this.cache.set(hash, principal);
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

  issue(kind: KeyKind, projectId: string | null, name: string, manager?: EntityManager): Promise<IssuedKey> {
    const { secret, hash, prefix } = generateApiKey(kind);
    const entity = Object.assign(new ApiKeyEntity(), {
      id: newId(),
      projectId,
      name,
      keyHash: hash,
      keyPrefix: prefix,
      createdAt: new Date(),
      revokedAt: null,
    });
    return this.keys.insert(entity, manager).then((saved) => ({ entity: saved, secret }));
  }

  listForProject(projectId: string): Promise<ApiKeyEntity[]> {
    return this.keys.listForProject(projectId);
  }

  async revoke(projectId: string, keyId: string): Promise<boolean> {
    const revoked = await this.keys.revoke(projectId, keyId, new Date());
    if (revoked) this.cache.deleteWhere((principal) => principal.keyId === keyId);
    return revoked;
  }

  hasAdminKey(): Promise<boolean> {
    return this.envAdminHash ? Promise.resolve(true) : this.keys.countAdminKeys().then((n) => n > 0);
  }
}
