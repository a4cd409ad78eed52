import type { AdminPrincipal } from '../auth/principal';
import { notFound } from '../common/errors';

/**
 * The workspace an admin key's usage report may cover (docs/security.md, "Workspace admin keys"):
 * the instance admin key any (or the one asked for); a workspace admin key its own only, as on
 * every path that names a workspace: another is not found. Undefined means every workspace.
 */
export function workspaceReachedBy(caller: AdminPrincipal, requested: string | undefined): string | undefined {
  if (caller.workspaceSlug === null) return requested;
  if (requested !== undefined && requested !== caller.workspaceSlug) throw notFound('Workspace not found');
  return caller.workspaceSlug;
}
