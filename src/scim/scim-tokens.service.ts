import { randomBytes } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { InstanceAuditLog } from '../audit/instance-audit-log';
import { hashApiKey } from '../auth/api-key-secret';
import { notFound } from '../common/errors';
import { isUuid, newId } from '../common/ids';
import { CreateTransaction, plainTransaction } from '../idempotency/create-transaction';
import { CreatedScimTokenDto, CreateScimTokenDto, ScimTokenDto, ScimTokenRevokedDto } from './dto/scim-token.dto';
import { returnedRows } from './scim-sql';

/** `pscim_` and 192 random bits, URL-safe: told apart from API keys (`pk_`, `ak_`) at a glance. */
const TOKEN_PREFIX = 'pscim_';
/** The stored prefix: enough to tell tokens apart in a listing, far too little to guess the rest. */
const SHOWN_PREFIX_LENGTH = 10;
/** No token is longer; a longer bearer is refused without hashing it. */
const MAX_TOKEN_LENGTH = 200;
/** last_used_at is written at most this often per token, not on every SCIM request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The workspace directory a SCIM request acts for, and the token that says so (the audit trail's actor). */
export interface ScimCredential {
  tokenId: string;
  tokenName: string;
  workspaceId: string;
}

interface TokenRow {
  id: string;
  workspace_id: string;
  name: string;
  token_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

const toDto = (row: TokenRow): ScimTokenDto => ({
  id: row.id,
  object: 'scim_token',
  name: row.name,
  prefix: row.token_prefix,
  workspaceId: row.workspace_id,
  createdAt: iso(row.created_at)!,
  lastUsedAt: iso(row.last_used_at),
  revokedAt: iso(row.revoked_at),
});

/**
 * SCIM tokens (docs/security.md, "SCIM"): the bearer an identity provider's SCIM connection sends
 * to `/scim/v2`, one workspace's each. Made and revoked by the workspace's admin (its admin key, or
 * a person with its admin role) or the instance's; stored as SHA-256 hashes, like API keys, so a
 * request is authenticated by one indexed lookup of its hash. Every change writes its instance
 * audit row in the same transaction.
 */
@Injectable()
export class ScimTokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: InstanceAuditLog,
  ) {}

  async create(workspaceSlug: string, dto: CreateScimTokenDto, tx?: CreateTransaction): Promise<CreatedScimTokenDto> {
    const workspace = await this.workspaceNamed(workspaceSlug);
    const token = TOKEN_PREFIX + randomBytes(24).toString('base64url');
    const row: TokenRow = {
      id: newId(),
      workspace_id: workspace.id,
      name: dto.name ?? 'scim',
      token_prefix: token.slice(0, SHOWN_PREFIX_LENGTH),
      created_at: new Date(),
      last_used_at: null,
      revoked_at: null,
    };
    return (tx ?? plainTransaction(this.dataSource)).run(async (manager) => {
      await manager.query(
        'INSERT INTO scim_tokens (id, workspace_id, name, token_hash, token_prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [row.id, row.workspace_id, row.name, hashApiKey(token), row.token_prefix, row.created_at],
      );
      await this.audit.record(manager, {
        workspaceId: workspace.id,
        action: 'scim_token.created',
        resourceType: 'scim_token',
        resourceId: row.id,
        after: { name: row.name, prefix: row.token_prefix },
      });
      return { ...toDto(row), token, workspace: workspace.slug };
    });
  }

  /** Every token of the workspace, revoked ones too, oldest first; never a secret. */
  async list(workspaceSlug: string): Promise<ScimTokenDto[]> {
    const workspace = await this.workspaceNamed(workspaceSlug);
    const rows: TokenRow[] = await this.dataSource.query(
      `SELECT id, workspace_id, name, token_prefix, created_at, last_used_at, revoked_at
         FROM scim_tokens WHERE workspace_id = $1 ORDER BY id`,
      [workspace.id],
    );
    return rows.map(toDto);
  }

  /** The token stops working on its next request, on every instance (each request looks it up). A revoked or unknown one is 404. */
  async revoke(workspaceSlug: string, tokenId: string): Promise<ScimTokenRevokedDto> {
    const workspace = await this.workspaceNamed(workspaceSlug);
    const revoked = isUuid(tokenId) && (await this.dataSource.transaction((manager) => this.revokeIn(manager, workspace.id, tokenId)));
    if (!revoked) throw notFound('SCIM token not found');
    return { id: tokenId, object: 'scim_token.revoked', revoked: true };
  }

  private async revokeIn(manager: EntityManager, workspaceId: string, tokenId: string): Promise<boolean> {
    const result: unknown[] = await manager.query(
      `UPDATE scim_tokens SET revoked_at = $3 WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL
       RETURNING name, token_prefix`,
      [workspaceId, tokenId, new Date()],
    );
    const row = returnedRows<{ name: string; token_prefix: string }>(result)[0];
    if (!row) return false;
    await this.audit.record(manager, {
      workspaceId,
      action: 'scim_token.revoked',
      resourceType: 'scim_token',
      resourceId: tokenId,
      before: { name: row.name, prefix: row.token_prefix },
    });
    return true;
  }

  /** The live token with this secret; null otherwise (unknown, revoked, not a token at all). */
  async authenticate(secret: string): Promise<ScimCredential | null> {
    if (secret.length > MAX_TOKEN_LENGTH) return null;
    const rows: { id: string; name: string; workspace_id: string; last_used_at: Date | null }[] = await this.dataSource.query(
      'SELECT id, name, workspace_id, last_used_at FROM scim_tokens WHERE token_hash = $1 AND revoked_at IS NULL',
      [hashApiKey(secret)],
    );
    const row = rows[0];
    if (!row) return null;
    const now = Date.now();
    if (row.last_used_at === null || new Date(row.last_used_at).getTime() < now - LAST_USED_RESOLUTION_MS) {
      await this.dataSource.query('UPDATE scim_tokens SET last_used_at = $2 WHERE id = $1', [row.id, new Date(now)]);
    }
    return { tokenId: row.id, tokenName: row.name, workspaceId: row.workspace_id };
  }

  private async workspaceNamed(slug: string): Promise<{ id: string; slug: string }> {
    const rows: { id: string; slug: string }[] = await this.dataSource.query('SELECT id, slug FROM workspaces WHERE slug = $1', [slug]);
    if (!rows[0]) throw notFound('Workspace not found');
    return rows[0];
  }
}
