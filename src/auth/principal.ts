import type { PrincipalUser, UserAccess } from './roles';
import { grants, Scope } from './scopes';

/**
 * Who is calling: resolved from the API key by the global guard and attached to the request.
 * The one place where a caller's scopes live: anything that stands for a key (a console session
 * made from one) carries the same principal, so the guard treats both alike.
 */
interface PrincipalAccess {
  /** The key's name, for the audit trail; the instance admin key from the environment is "PARLEY_ADMIN_KEY". */
  keyName: string | null;
  /** The key's scopes; null means every scope (a key made without naming any). */
  scopes: readonly Scope[] | null;
  /** The environments the key may invoke; null means every environment. */
  environments: readonly string[] | null;
  /** Authenticated by the console's session cookie (which stands for this key or person), not by the key itself. */
  viaSession?: true;
  /**
   * The person signed in with OpenID Connect (docs/security.md, "Sign-in"); keyId and keyName are
   * then null and the scopes are their role's. Absent for keys.
   */
  user?: PrincipalUser;
}

export interface ProjectPrincipal extends PrincipalAccess {
  kind: 'project';
  /** The project key's id; an admin key's (null: the one from the environment) when `actingAdmin`. */
  keyId: string | null;
  /** An admin key acting in this project by naming it (X-Parley-Project: docs/console.md, "The admin key in a project"). */
  actingAdmin?: true;
  projectId: string;
  projectSlug: string;
  workspaceId: string;
  workspaceSlug: string;
}

export interface AdminPrincipal extends PrincipalAccess {
  kind: 'admin';
  keyId: string | null;
  /** A workspace admin key's workspace; null for the instance's admin key (every workspace). */
  workspaceId: string | null;
  workspaceSlug: string | null;
}

export type Principal = ProjectPrincipal | AdminPrincipal;

export interface RequestWithPrincipal {
  principal?: Principal;
  /** A signed-in person's access, on @SignedIn() routes (where `principal` may be absent: no project chosen). */
  person?: UserAccess;
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string>;
}

/** Full access: the instance's admin key, and keys stored without scopes. */
export const ALL_ACCESS = Object.freeze({ scopes: null, environments: null });

/** The instance's admin key: every workspace, every scope. */
export const INSTANCE_ADMIN = (keyId: string | null, keyName: string | null): AdminPrincipal => ({
  kind: 'admin',
  keyId,
  keyName,
  workspaceId: null,
  workspaceSlug: null,
  ...ALL_ACCESS,
});

/**
 * The credential behind a request, for binding what it leaves behind to it: a stored key's id, or
 * the name of the admin key from the environment (which has no id). An Idempotency-Key's outcome is
 * replayed only to the credential that made it (docs/security.md, "Idempotency keys").
 */
export function credentialOf(principal: Principal): string {
  if (principal.user) return `user:${principal.user.id}`;
  return principal.keyId ?? `env:${principal.keyName ?? ''}`;
}

/** Whether a caller may reach this workspace: an instance admin and the workspace's own keys may. */
export function reachesWorkspace(principal: Principal, workspaceId: string): boolean {
  return principal.workspaceId === null || principal.workspaceId === workspaceId;
}

export function hasScope(principal: Principal, ...anyOf: Scope[]): boolean {
  return grants(principal.scopes, anyOf);
}

/** Whether the key may invoke in `environment` (an environment-limited key may only invoke deployments). */
export function mayInvokeIn(principal: Principal, environment: string | null): boolean {
  if (principal.environments === null) return true;
  return environment !== null && principal.environments.includes(environment);
}
