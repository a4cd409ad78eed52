import { randomBytes } from 'node:crypto';

import { HttpStatus, Injectable, OnModuleInit } from '@nestjs/common';

import { hashApiKey } from '../auth/api-key-secret';
import { ApiKeysService } from '../auth/api-keys.service';
import { INSTANCE_ADMIN, Principal } from '../auth/principal';
import { SessionIdentity, SessionPrincipals } from '../auth/session-cookie';
import { ApiException, invalidApiKey, resourceError } from '../common/errors';
import { newId } from '../common/ids';
import { UserAccessRepository } from '../people/user-access.repository';
import { ConsoleSessionsRepository } from './console-sessions.repository';

/** How long a console session lasts (docs/console.md); sign-out ends it sooner. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Expired rows are deleted on a later sign-in once they are this old. */
const EXPIRED_KEPT_MS = 24 * 60 * 60 * 1000;

/** Failed sign-ins allowed per client address, and per key prefix, in a sliding minute (docs/security.md, "Console sign-in"). */
export const SIGN_IN_FAILURES = 10;
export const SIGN_IN_WINDOW_MS = 60_000;
/** Addresses and prefixes tracked at most, each; past it the one that failed longest ago is forgotten. */
export const SIGN_IN_TRACKED = 10_000;
/** The stored key prefix's length (api-key-secret.ts): the per-key bucket. */
const KEY_PREFIX_LENGTH = 10;

/**
 * Recent failure times per bucket, in memory (so per instance), bounded: a Map kept in order of
 * last failure, the first entry evicted past `max`. No timers: old times are dropped when read.
 */
class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly max: number) {}

  /** Milliseconds until `bucket` may try again; 0 when it may now. */
  waitFor(bucket: string, now: number): number {
    const times = this.recent(bucket, now);
    return times.length >= SIGN_IN_FAILURES ? times[times.length - SIGN_IN_FAILURES] + SIGN_IN_WINDOW_MS - now : 0;
  }

  add(bucket: string, at: number): void {
    const times = this.recent(bucket, at);
    times.push(at);
    this.failures.delete(bucket);
    this.failures.set(bucket, times);
    if (this.failures.size > this.max) this.failures.delete(this.failures.keys().next().value!);
  }

  /** Takes back one failure recorded at `at` (the attempt succeeded). */
  remove(bucket: string, at: number): void {
    const times = this.failures.get(bucket);
    const index = times?.lastIndexOf(at) ?? -1;
    if (index >= 0) times!.splice(index, 1);
    if (times?.length === 0) this.failures.delete(bucket);
  }

  private recent(bucket: string, now: number): number[] {
    const times = this.failures.get(bucket) ?? [];
    const live = times.filter((at) => at > now - SIGN_IN_WINDOW_MS);
    if (live.length !== times.length) {
      if (live.length === 0) this.failures.delete(bucket);
      else this.failures.set(bucket, live);
    }
    return live;
  }
}

/**
 * The sign-in throttle (docs/security.md, "Console sign-in"). An attempt counts as a failure from
 * its start, so parallel guesses cannot all slip under the limit, and is taken back if the key was
 * right.
 */
export class SignInThrottle {
  private readonly byClient = new FailureWindow(SIGN_IN_TRACKED);
  private readonly byKey = new FailureWindow(SIGN_IN_TRACKED);

  constructor(private readonly clock: () => number = Date.now) {}

  /**
   * Throws the 429 when the client or the key prefix is over the limit; else returns the attempt's
   * undo. `secret` null (a sign-in with OpenID Connect): the client's limit only.
   */
  begin(client: string, secret: string | null): () => void {
    const now = this.clock();
    const prefix = secret?.slice(0, KEY_PREFIX_LENGTH) ?? null;
    const wait = Math.max(this.byClient.waitFor(client, now), prefix === null ? 0 : this.byKey.waitFor(prefix, now));
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      // The endpoint's `{error: {message}}` shape, with Retry-After.
      const message = `Too many failed sign-ins from this address or for this key; try again in ${seconds} s`;
      throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, resourceError(HttpStatus.TOO_MANY_REQUESTS, message).body, {
        'Retry-After': String(seconds),
      });
    }
    this.byClient.add(client, now);
    if (prefix !== null) this.byKey.add(prefix, now);
    return () => {
      this.byClient.remove(client, now);
      if (prefix !== null) this.byKey.remove(prefix, now);
    };
  }
}

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
  private readonly throttle = new SignInThrottle();

  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    private readonly keys: ApiKeysService,
    private readonly hook: SessionPrincipals,
    private readonly people: UserAccessRepository,
  ) {}

  onModuleInit(): void {
    this.hook.register((token) => this.resolve(token));
  }

  /**
   * Signs in from `client` (an address), throttled; `previousToken` is the session cookie the request
   * carried, revoked with the new session's insert (docs/security.md, "Console sign-in").
   */
  async start(secret: string, client: string, previousToken: string | null = null): Promise<StartedSession> {
    const undo = this.throttle.begin(client, secret);
    try {
      const started = await this.exchange(secret, previousToken);
      undo();
      return started;
    } catch (err) {
      // Only a wrong key is a failed sign-in; a database failure is not the client's.
      if (!(err instanceof ApiException && err.getStatus() === 401)) undo();
      throw err;
    }
  }

  private async exchange(secret: string, previousToken: string | null): Promise<StartedSession> {
    const principal = await this.keys.resolve(secret);
    if (!principal) throw invalidApiKey();
    const now = new Date();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    await this.sessions.deleteExpired(new Date(now.getTime() - EXPIRED_KEPT_MS));
    await this.sessions.replace(previousToken ? hashApiKey(previousToken) : null, {
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

  /**
   * A sign-in with OpenID Connect from `client` begins: counted against the same per-address limit
   * as a key's (the 429 ApiException when over it); call the undo when it succeeds, or failed for
   * a reason that is not the client's (the provider unreachable).
   */
  beginSignInAttempt(client: string): () => void {
    return this.throttle.begin(client, null);
  }

  /**
   * Starts a session for a person signed in with OpenID Connect (docs/security.md, "Sign-in"),
   * revoking the session cookie the request carried, as a key's sign-in does.
   */
  async startForUser(userId: string, previousToken: string | null = null): Promise<{ token: string; expiresAt: Date }> {
    const now = new Date();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    await this.sessions.deleteExpired(new Date(now.getTime() - EXPIRED_KEPT_MS));
    await this.sessions.replace(previousToken ? hashApiKey(previousToken) : null, {
      id: newId(),
      tokenHash: hashApiKey(token),
      kind: 'user',
      keyId: null,
      userId,
      projectId: null,
      createdAt: now,
      expiresAt,
    });
    return { token, expiresAt };
  }

  /**
   * What a live session stands for; null when it expired or was revoked, its key was revoked, or
   * its person is inactive or holds no role anywhere any more.
   */
  async resolve(token: string): Promise<SessionIdentity | null> {
    const row = await this.sessions.findLive(hashApiKey(token), new Date());
    if (!row) return null;
    if (row.kind === 'user') {
      const access = row.user_id === null ? null : await this.people.accessOf(row.user_id);
      return access && (access.instanceAdmin || access.grants.length > 0) ? { access } : null;
    }
    // The admin key from PARLEY_ADMIN_KEY has no stored row: its sessions last until they expire.
    if (row.key_id === null) return row.kind === 'admin' ? { principal: INSTANCE_ADMIN(null, 'PARLEY_ADMIN_KEY') } : null;
    const principal = await this.keys.resolveKeyId(row.key_id);
    return principal?.kind === row.kind ? { principal } : null;
  }

  /** Ends every session of a person on every instance (removed from the last place they had a role, deactivated). */
  endAllOfUser(userId: string): Promise<number> {
    return this.sessions.revokeAllOfUser(userId, new Date());
  }

  /** Ends every session of these people on every instance (one statement). */
  endAllOfUsers(userIds: readonly string[]): Promise<number> {
    return this.sessions.revokeAllOfUsers(userIds, new Date());
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
