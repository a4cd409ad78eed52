import { hasScope, Principal } from '../auth/principal';
import { ApplyCaller } from './apply.service';

/** The REST caller as apply and export see it: the admin, or a project key limited to its own project. */
export function applyCallerOf(principal: Principal): ApplyCaller {
  return principal.kind === 'admin'
    ? {
        kind: 'admin',
        ...(principal.workspaceSlug !== null ? { workspace: principal.workspaceSlug } : {}),
        mayWriteProviders: hasScope(principal, 'providers:write'),
        scopes: principal.scopes,
      }
    : {
        kind: 'project',
        workspaceSlug: principal.workspaceSlug,
        projectSlug: principal.projectSlug,
        mayWriteProviders: hasScope(principal, 'providers:write'),
        scopes: principal.scopes,
      };
}
