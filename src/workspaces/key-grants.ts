import { Principal } from '../auth/principal';
import { Scope, scopesBeyond } from '../auth/scopes';
import { forbidden, notFound } from '../common/errors';

/** What a key holds or is given: scopes and environments, null meaning all. */
export interface KeyGrant {
  scopes: readonly Scope[] | null;
  environments: readonly string[] | null;
}

/** The environments of `requested` (null: all) beyond those `granted` (null: all) allows. */
function environmentsBeyond(granted: readonly string[] | null, requested: readonly string[] | null): string[] | null {
  if (granted === null) return [];
  if (requested === null) return null;
  return requested.filter((environment) => !granted.includes(environment));
}

/** Why `wanted` holds more than `caller`, or null when it holds at most as much. */
function excess(caller: Principal, wanted: KeyGrant): string | null {
  const scopes = scopesBeyond(caller.scopes, wanted.scopes);
  if (scopes.length > 0) return `scopes it does not hold: ${scopes.join(', ')}`;
  const environments = environmentsBeyond(caller.environments, wanted.environments);
  if (environments === null) return `every environment (it is limited to: ${caller.environments!.join(', ')})`;
  if (environments.length > 0) return `environments it is not allowed: ${environments.join(', ')}`;
  return null;
}

/**
 * A key cannot make a key that can do more than itself (docs/security.md, "Managing keys"): scopes
 * and environments both. A workspace admin key limited to some scopes gives at most those.
 */
export function assertWithinGrant(
  caller: Principal,
  requested: readonly Scope[] | null,
  environments: readonly string[] | null = null,
): void {
  const beyond = excess(caller, { scopes: requested, environments });
  if (beyond) throw forbidden(`This API key cannot grant ${beyond}`);
}

/** Nor revoke or re-scope a key that holds more than itself: a narrow key cannot lock out a wider one. */
export function assertManages(caller: Principal, target: KeyGrant): void {
  const beyond = excess(caller, target);
  if (beyond) throw forbidden(`This API key cannot change a key that holds more than itself (${beyond})`);
}

/** A project key manages its own project's keys only: any other project is not found, as if it did not exist. */
export function assertOwnProject(caller: Principal, workspaceSlug: string, projectSlug: string): void {
  if (caller.kind === 'project' && (caller.workspaceSlug !== workspaceSlug || caller.projectSlug !== projectSlug))
    throw notFound('Project not found');
}

/** Only the instance's admin key creates workspaces; a workspace admin key stays inside its own. */
export function assertInstanceAdmin(caller: Principal): void {
  if (caller.workspaceId !== null) throw forbidden('Creating a workspace needs the instance admin key');
}
