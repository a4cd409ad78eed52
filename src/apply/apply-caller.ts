import { hasScope, Principal } from '../auth/principal';
import type { Scope } from '../auth/scopes';
import { requesterOf } from '../registry/deployments/deployment-requests.mapper';
import { Requester } from '../registry/deployments/deployment-requests.repository';

/**
 * What a deploying caller adds (docs/security.md, "Approvals"): `mayDeploy`, the `deploy` scope
 * (false: a file that would change a deployment is refused; absent: the operator, who may); who a
 * protected environment's deployment request names (absent: the operator, the CLI on the database).
 */
interface ApplyDeployingCaller {
  mayDeploy?: boolean;
  requester?: Requester;
  /** The caller's scopes (null: every scope), which an `access` block needs `members:manage` of; absent for the operator. */
  scopes?: readonly Scope[] | null;
  /** The environments the key may invoke (null: every one); a limited key gives no roles (docs/security.md, "Roles"). */
  environments?: readonly string[] | null;
}

/** Who applies: the admin key (any workspace and project, created when missing) or a project key (its own only). */
export type ApplyCaller =
  /** `workspace`: a workspace admin key, limited to that workspace (others are not found), and not the operator. */
  | ({ kind: 'admin'; workspace?: string; mayWriteProviders?: boolean } & ApplyDeployingCaller)
  /** `mayWriteProviders`: the key holds `providers:write`; without it a file that would change a provider is refused. */
  | ({ kind: 'project'; workspaceSlug: string; projectSlug: string; mayWriteProviders: boolean } & ApplyDeployingCaller);

/**
 * The REST caller as apply and export see it: the admin, or a project key limited to its own
 * project; whether it may deploy (the `deploy` scope) and who a deployment request would name.
 */
export function applyCallerOf(principal: Principal): ApplyCaller {
  const deploying = { mayDeploy: hasScope(principal, 'deploy'), requester: requesterOf(principal) };
  return principal.kind === 'admin'
    ? {
        kind: 'admin',
        ...(principal.workspaceSlug !== null ? { workspace: principal.workspaceSlug } : {}),
        mayWriteProviders: hasScope(principal, 'providers:write'),
        scopes: principal.scopes,
        environments: principal.environments,
        ...deploying,
      }
    : {
        kind: 'project',
        workspaceSlug: principal.workspaceSlug,
        projectSlug: principal.projectSlug,
        mayWriteProviders: hasScope(principal, 'providers:write'),
        scopes: principal.scopes,
        environments: principal.environments,
        ...deploying,
      };
}
