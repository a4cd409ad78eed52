import { Principal } from '../auth/principal';
import { Scope, scopesBeyond } from '../auth/scopes';
import { forbidden } from '../common/errors';

/**
 * A key cannot make a key that can do more than itself (docs/security.md, "Workspace admin keys"):
 * a workspace admin key limited to some scopes gives at most those.
 */
export function assertWithinGrant(caller: Principal, requested: readonly Scope[] | null): void {
  const beyond = scopesBeyond(caller.scopes, requested);
  if (beyond.length > 0) throw forbidden(`This API key cannot grant scopes it does not hold: ${beyond.join(', ')}`);
}

/** Only the instance's admin key creates workspaces; a workspace admin key stays inside its own. */
export function assertInstanceAdmin(caller: Principal): void {
  if (caller.workspaceId !== null) throw forbidden('Creating a workspace needs the instance admin key');
}
