import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { forbidden, invalidApiKey, notFound } from '../common/errors';
import { ApiKeysService } from './api-keys.service';
import { Access, ACCESS_KEY, ANY_SCOPE, SCOPES_KEY } from './auth.decorators';
import { Principal, RequestWithPrincipal } from './principal';
import { UserAccess, userAsAdmin, userInProject } from './roles';
import { grants, Scope } from './scopes';
import { CSRF_HEADER, SessionIdentity, SessionPrincipals, sessionTokenOf } from './session-cookie';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `X-Parley-Project: <workspace>/<project>`: an admin key acting in that project on the project routes. */
export const PROJECT_HEADER = 'x-parley-project';

/** `X-API-Key: <key>`, or `Authorization: Bearer <key>` as sent by existing SDKs. */
export function extractApiKey(headers: RequestWithPrincipal['headers']): string | null {
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = headers['authorization'];
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return null;
}

/**
 * The workspace an admin route without one in its path is asked about (`?workspace=<slug>`: the
 * instance's audit trail), so a person who is the admin of several workspaces acts as that one's.
 */
function workspaceQueryOf(request: { query?: unknown }): string | undefined {
  const workspace = (request.query as Record<string, unknown> | undefined)?.workspace;
  return typeof workspace === 'string' ? workspace : undefined;
}

interface RouteRule {
  access: Access;
  /** Any one of these, or any key at all; empty only on a route ScopeCoverage would have refused, which then admits nobody. */
  scopes: readonly Scope[] | typeof ANY_SCOPE;
}

/** The 403 of a key without the route's scope (docs/security.md, "Scopes"); `/v1` re-shapes it to OpenAI's permission error. */
export const missingScope = (scopes: readonly Scope[], person = false) =>
  forbidden(`${person ? 'Your role here' : 'This API key'} lacks the scope this endpoint needs: ${scopes.join(' or ')}`);

/**
 * The one global guard. Every route needs a project key unless marked @Public() or @AdminOnly();
 * a missing or unknown key is the spec's 401 body everywhere. Without a key header, the console's
 * session cookie stands for the key it was made from (docs/console.md); a state-changing request
 * on a cookie needs the CSRF header.
 * Then the key (or the session's key) must hold the scope the route declares (@RequireScope): a
 * 403 otherwise. A workspace admin key naming another workspace in the path gets its 404.
 * A person's session becomes a principal per route (personOf); a @SignedIn() route (who am I,
 * sign out) admits them with or without a project chosen (admitPerson).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  /** Per handler: the metadata lookups cost more than the rest of the check, on every request. */
  private readonly rules = new WeakMap<object, RouteRule>();

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
    private readonly sessions: SessionPrincipals,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.ruleOf(context);
    if (rule.access === 'public') return true;
    const request = context.switchToHttp().getRequest<RequestWithPrincipal & { method: string; query?: unknown }>();
    const found = await this.principalOf(request);
    if (!found) throw invalidApiKey();
    const target = request.headers[PROJECT_HEADER];
    if (found.access && rule.access === 'signed-in') return this.admitPerson(request, found.access, rule, target);
    const workspaceNamed = request.params?.workspace ?? (rule.access === 'admin' ? workspaceQueryOf(request) : undefined);
    let principal: Principal | null = found.principal ?? (await this.personOf(found.access!, rule.access, target, workspaceNamed));
    // The admin key acts in one project by naming it (docs/console.md, "The admin key in a project").
    if (rule.access === 'project' && principal.kind === 'admin' && typeof target === 'string') {
      principal = await this.keys.actingIn(principal, target);
      if (!principal) throw notFound('Project not found');
    }
    if (rule.access === 'instance-admin') {
      if (principal.kind !== 'admin' || principal.workspaceId !== null) throw forbidden("This endpoint needs the instance's admin API key");
    } else if (rule.access !== 'admin-or-project' && rule.access !== 'signed-in' && principal.kind !== rule.access) {
      throw forbidden(rule.access === 'admin' ? 'This endpoint needs the admin API key' : 'This endpoint needs a project API key');
    }
    if (rule.scopes !== ANY_SCOPE && (rule.scopes.length === 0 || !grants(principal.scopes, rule.scopes))) {
      throw missingScope(rule.scopes, principal.user !== undefined);
    }
    // A workspace admin key reaches its own workspace only: any other is not found, as if it did not exist.
    const workspace = request.params?.workspace;
    if (
      principal.kind === 'admin' &&
      principal.workspaceSlug !== null &&
      workspace !== undefined &&
      workspace !== principal.workspaceSlug
    ) {
      throw notFound('Workspace not found');
    }
    request.principal = found.viaSession ? { ...principal, viaSession: true } : principal;
    return true;
  }

  private async principalOf(
    request: RequestWithPrincipal & { method: string },
  ): Promise<(SessionIdentity & { viaSession: boolean }) | null> {
    const secret = extractApiKey(request.headers);
    if (secret) {
      const principal = await this.keys.resolve(secret);
      return principal && { principal, viaSession: false };
    }
    const token = sessionTokenOf(request.headers);
    if (!token) return null;
    const identity = await this.sessions.resolve(token);
    if (identity && !SAFE_METHODS.has(request.method) && request.headers[CSRF_HEADER] === undefined) {
      throw forbidden(`A console request that changes something needs the ${CSRF_HEADER} header`);
    }
    return identity && { ...identity, viaSession: true };
  }

  /**
   * A person on a @SignedIn() route (who am I, sign out): admitted with or without a project. The
   * project X-Parley-Project names becomes their principal when they hold a role there; one they
   * do not is left out rather than refused, so "who am I" still answers (and shows no project).
   */
  private async admitPerson(request: RequestWithPrincipal, access: UserAccess, rule: RouteRule, target: unknown): Promise<boolean> {
    const project = typeof target === 'string' ? await this.keys.projectNamed(target) : null;
    const here = project && userInProject(access, project);
    if (rule.scopes !== ANY_SCOPE && !(here && rule.scopes.length > 0 && grants(here.scopes, rule.scopes))) {
      throw missingScope(rule.scopes, true);
    }
    request.person = access;
    if (here) request.principal = { ...here, viaSession: true };
    return true;
  }

  /**
   * A signed-in person as this route needs them (docs/security.md, "Roles"): in the project that
   * X-Parley-Project names, with their role's scopes (a project they have no role in is not found);
   * on the admin routes, as the instance's admin or a workspace's `admin`.
   */
  private async personOf(access: UserAccess, route: Access, target: unknown, workspace: string | undefined): Promise<Principal> {
    if (typeof target === 'string' && (route === 'project' || route === 'admin-or-project')) {
      const project = await this.keys.projectNamed(target);
      const principal = project && userInProject(access, project);
      if (!principal) throw notFound('Project not found');
      return principal;
    }
    const admin = userAsAdmin(access, workspace);
    if (admin) return admin;
    if (route === 'project' || route === 'admin-or-project') {
      throw forbidden(`Choose a project: send ${PROJECT_HEADER}: <workspace>/<project> (one you have a role in)`);
    }
    if (workspace !== undefined && access.grants.some((grant) => grant.workspaceSlug === workspace)) {
      throw forbidden("This needs the workspace's admin role");
    }
    throw workspace !== undefined ? notFound('Workspace not found') : forbidden('This needs the admin role');
  }

  private ruleOf(context: ExecutionContext): RouteRule {
    const handler = context.getHandler();
    let rule = this.rules.get(handler);
    if (!rule) {
      const targets = [handler, context.getClass()];
      rule = {
        access: this.reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, targets) ?? 'project',
        scopes: this.reflector.getAllAndOverride<Scope[] | typeof ANY_SCOPE | undefined>(SCOPES_KEY, targets) ?? [],
      };
      this.rules.set(handler, rule);
    }
    return rule;
  }
}
