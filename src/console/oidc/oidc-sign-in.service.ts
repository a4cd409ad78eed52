import { timingSafeEqual } from 'node:crypto';

import { HttpStatus, Injectable, Logger } from '@nestjs/common';

import { InstanceAuditLog } from '../../audit/instance-audit-log';
import { ApiException } from '../../common/errors';
import { AppConfig } from '../../config/app-config';
import { OidcSettings } from '../../config/sign-in-config';
import { UserAccessRepository } from '../../people/user-access.repository';
import { ConsoleSessionsService } from '../console-sessions.service';
import { IdentityClaims, OidcClient } from './oidc-client';
import { consoleReturnTo, SignInFlow } from './oidc-flow-cookie';
import { AccountConflict, OidcUsersRepository, VerifiedIdentity } from './oidc-users.repository';
import { auditText, refusalOfExchange, SignInError, SignInRefusal } from './sign-in-refusal';

/** Groups kept from one sign-in's claim, and the longest name kept (the column's size); longer names are dropped, not cut. */
export const MAX_GROUPS = 200;
export const MAX_GROUP_NAME = 200;
const MAX_EMAIL = 320;
const MAX_NAME = 200;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROLS = /[\u0000-\u001f\u007f]/g;

/** The provider's answer as the callback received it: the query of `{PUBLIC_URL}/v2/console/oidc/callback`. */
export interface CallbackInput {
  /** The callback's path and query as requested (req.originalUrl). */
  pathAndQuery: string;
  query: Record<string, unknown>;
  flow: SignInFlow | null;
  client: string;
  /** The session cookie the browser had, revoked by the new session. */
  previousToken: string | null;
}

export type SignInOutcome = { ok: true; token: string; expiresAt: Date; returnTo: string } | { ok: false; error: SignInError };

/**
 * Sign-in with OpenID Connect (docs/security.md, "Sign-in"): starts the code flow, and finishes it
 * with every check, the user's record, and a console session; each refusal is a code for the
 * console, a `sign_in.failed` row with its reason in the instance's trail, and a failure counted by
 * the sign-in throttle (per client address, shared with key sign-ins).
 */
@Injectable()
export class OidcSignInService {
  private readonly logger = new Logger('OidcSignIn');

  constructor(
    private readonly client: OidcClient,
    private readonly users: OidcUsersRepository,
    private readonly people: UserAccessRepository,
    private readonly sessions: ConsoleSessionsService,
    private readonly audit: InstanceAuditLog,
    private readonly config: AppConfig,
  ) {}

  /** The provider's authorization URL for a new sign-in, and the flow for the browser's cookie. */
  async begin(returnTo: unknown): Promise<{ ok: true; url: string; flow: SignInFlow } | { ok: false; error: SignInError }> {
    if (!this.config.signIn.oidc) return { ok: false, error: 'sso_not_configured' };
    try {
      const { url, checks } = await this.client.start();
      return { ok: true, url: url.href, flow: { ...checks, returnTo: consoleReturnTo(returnTo), startedAt: Date.now() } };
    } catch (err) {
      this.logger.warn(`The identity provider could not be discovered: ${auditText((err as Error)?.message) ?? 'unknown error'}`);
      return { ok: false, error: 'provider_unavailable' };
    }
  }

  async complete(input: CallbackInput): Promise<SignInOutcome> {
    const settings = this.config.signIn.oidc;
    if (!settings) return { ok: false, error: 'sso_not_configured' };
    let undo: () => void;
    try {
      undo = this.sessions.beginSignInAttempt(input.client);
    } catch (err) {
      if (err instanceof ApiException && err.getStatus() === HttpStatus.TOO_MANY_REQUESTS) return { ok: false, error: 'throttled' };
      throw err;
    }
    const known: { email?: string; userId?: string } = {};
    try {
      const user = await this.verify(settings, input, known);
      const session = await this.sessions.startForUser(user.id, input.previousToken);
      undo();
      await this.record(input.client, 'sign_in.succeeded', known, { method: 'oidc', issuer: settings.issuer }).catch((err) =>
        this.logger.error(`A sign-in was not recorded in the audit trail: ${auditText((err as Error)?.message)}`),
      );
      return { ok: true, token: session.token, expiresAt: session.expiresAt, returnTo: input.flow!.returnTo };
    } catch (err) {
      const refusal = err instanceof SignInRefusal ? err : new SignInRefusal('server_error', null, false);
      if (!(err instanceof SignInRefusal)) this.logger.error(`Sign-in failed: ${auditText((err as Error)?.message) ?? 'unknown error'}`);
      if (!refusal.clientsFault) undo();
      const reason = { method: 'oidc', reason: refusal.code, ...(refusal.detail ? { detail: refusal.detail } : {}) };
      // A callback without this browser's flow cookie began no sign-in here: not recorded, so that
      // anyone's requests cannot grow the trail (docs/security.md, "Sign-in"); still throttled.
      if (input.flow) await this.record(input.client, 'sign_in.failed', known, reason).catch(() => undefined);
      return { ok: false, error: refusal.code };
    }
  }

  /** Every check of the callback, then the user's record: their id, or a refusal. */
  private async verify(settings: OidcSettings, input: CallbackInput, known: { email?: string; userId?: string }): Promise<{ id: string }> {
    const { query, flow } = input;
    if (query.error !== undefined) throw new SignInRefusal('provider_denied', auditText(query.error, 64));
    if (typeof query.code !== 'string' || typeof query.state !== 'string') throw new SignInRefusal('invalid_callback');
    if (!flow) throw new SignInRefusal('sign_in_expired');
    if (!sameText(query.state, flow.state)) throw new SignInRefusal('state_mismatch');

    let claims: IdentityClaims;
    try {
      claims = await this.client.finish(new URL(input.pathAndQuery, this.config.signIn.publicUrl!), flow);
    } catch (err) {
      throw refusalOfExchange(err);
    }
    const identity = this.identityOf(settings, claims, known);
    let user;
    try {
      user = await this.users.signIn(identity, this.config.signIn.instanceAdmins.includes(identity.email.toLowerCase()));
    } catch (err) {
      if (err instanceof AccountConflict) throw new SignInRefusal('account_conflict');
      throw err;
    }
    known.userId = user.id;
    if (!user.active) throw new SignInRefusal('user_inactive');
    const access = await this.people.accessOf(user.id);
    if (!access) throw new SignInRefusal('user_inactive');
    if (!access.instanceAdmin && access.grants.length === 0) throw new SignInRefusal('no_role');
    return user;
  }

  /** The claims Parley keeps, checked: an e-mail that is present, verified (when the provider says) and in an allowed domain. */
  private identityOf(settings: OidcSettings, claims: IdentityClaims, known: { email?: string }): VerifiedIdentity {
    const email = typeof claims.email === 'string' ? claims.email.trim() : '';
    if (email.length > MAX_EMAIL || !EMAIL.test(email) || CONTROL.test(email)) throw new SignInRefusal('email_missing');
    known.email = email;
    // Absent is trusted (Entra ID does not send it); present, it must say true (some providers send the string).
    const verified = claims.email_verified;
    if (verified !== undefined && verified !== true && verified !== 'true') throw new SignInRefusal('email_unverified');
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (settings.allowedDomains && !settings.allowedDomains.includes(domain)) throw new SignInRefusal('domain_not_allowed', domain);
    return { issuer: settings.issuer, subject: claims.sub, email, name: nameOf(claims), groups: groupsOf(claims[settings.groupsClaim]) };
  }

  private record(client: string, action: string, known: { email?: string; userId?: string }, after: Record<string, unknown>) {
    return this.audit.record(null, {
      workspaceId: null,
      action,
      resourceType: 'sign_in',
      resourceId: known.userId ?? known.email ?? 'unknown',
      after: known.email ? { ...after, email: known.email } : after,
      actor: {
        kind: known.userId && action === 'sign_in.succeeded' ? 'user' : 'anonymous',
        userId: known.userId ?? null,
        email: known.email ?? null,
      },
      clientAddress: client === 'unknown' ? null : client,
    });
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const clean = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const text = value.replace(CONTROLS, '').trim();
  return text === '' ? null : text;
};

/** `name`, else given and family names; at most MAX_NAME characters. */
function nameOf(claims: IdentityClaims): string | null {
  const name = clean(claims.name) ?? clean([clean(claims.given_name), clean(claims.family_name)].filter(Boolean).join(' '));
  return name === null ? null : name.slice(0, MAX_NAME);
}

/**
 * The groups claim: an array of strings (one string is taken as one group). Names that are empty,
 * longer than MAX_GROUP_NAME or hold control characters are dropped, never cut (a cut name could be
 * another group's); at most MAX_GROUPS, in the provider's order.
 */
export function groupsOf(claim: unknown): string[] {
  const values = Array.isArray(claim) ? claim : typeof claim === 'string' ? [claim] : [];
  const kept = new Set<string>();
  for (const value of values) {
    if (kept.size >= MAX_GROUPS) break;
    if (typeof value !== 'string' || value === '' || value.length > MAX_GROUP_NAME || CONTROL.test(value)) continue;
    kept.add(value);
  }
  return [...kept];
}
