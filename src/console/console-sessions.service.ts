import { Injectable, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hashApiKey } from '../auth/api-key-secret';
import { ApiKeysService } from '../auth/api-keys.service';
import { INSTANCE_ADMIN, Principal } from '../auth/principal';
import { SessionPrincipals } from '../auth/session-cookie';
import { invalidApiKey } from '../common/errors';
import { newId } from '../common/ids';
import { ConsoleSessionsRepository } from './console-sessions.repository';

/** How long a console session lasts (docs/console.md); sign-out ends it sooner. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Expired rows are deleted on a later sign-in once they are this old. */
const EXPIRED_KEPT_MS = 24 * 60 * 60 * 1000;

export interface StartedSession {
  /** The cookie value: returned once, stored only as its SHA-256 hash. */
  token: string;
  principal: Principal;
  expiresAt: Date;
}

/**
 * Console sessions (docs/console.md, "Sessions"): a key is exchanged once for a random token kept
 * in an HttpOnly cookie. Every request re-reads the session and its key from the database, so a
 * sign-out or a key revocation on any instance ends the session on all of them at once.
 */
@Injectable()
export class ConsoleSessionsService implements OnModuleInit {
  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    private readonly keys: ApiKeysService,
    private readonly hook: SessionPrincipals,
  ) {}

  onModuleInit(): void {
    this.hook.register((token) => this.resolve(token));
  }

  async start(secret: string): Promise<StartedSession> {
    const principal = await this.keys.resolve(secret);
    if (!principal) throw invalidApiKey();
    const now = new Date();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    await this.sessions.deleteExpired(new Date(now.getTime() - EXPIRED_KEPT_MS));
    await this.sessions.insert({
      id: newId(),
      tokenHash: hashApiKey(token),
      kind: principal.kind,
      keyId: principal.keyId,
      projectId: principal.kind === 'project' ? principal.projectId : null,
      createdAt: now,
      expiresAt,
    });
    return { token, principal, expiresAt };
  }

  /** The principal a live session stands for; null when it expired, was revoked, or its key was. */
  async resolve(token: string): Promise<Principal | null> {
    const row = await this.sessions.findLive(hashApiKey(token), new Date());
    if (!row) return null;
    // The admin key from PARLEY_ADMIN_KEY has no stored row: its sessions last until they expire.
    if (row.key_id === null) return row.kind === 'admin' ? INSTANCE_ADMIN(null, 'PARLEY_ADMIN_KEY') : null;
    const principal = await this.keys.resolveKeyId(row.key_id);
    return principal?.kind === row.kind ? principal : null;
  }

  /** When the session of this token ends; null without a live one (a caller using a key). */
  async expiryOf(token: string | null): Promise<Date | null> {
    if (!token) return null;
    const row = await this.sessions.findLive(hashApiKey(token), new Date());
    return row ? new Date(row.expires_at) : null;
  }

  end(token: string): Promise<boolean> {
    return this.sessions.revoke(hashApiKey(token), new Date());
  }
}
