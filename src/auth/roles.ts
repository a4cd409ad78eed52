import type { ProjectRef } from './api-keys.repository';
import { AdminPrincipal, ProjectPrincipal } from './principal';
import { Scope, SCOPE_PRESETS, SCOPES } from './scopes';

/**
 * A person's role in a workspace or a project (docs/security.md, "Roles"), mapped onto the scopes
 * keys have, so the one guard checks people and keys alike. Ordered weakest first.
 */
export const ROLES = ['viewer', 'editor', 'deployer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const EDITOR: readonly Scope[] = SCOPE_PRESETS.editor.filter((scope) => scope !== 'deploy');

export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: SCOPE_PRESETS.viewer,
  editor: EDITOR,
  deployer: [...EDITOR, 'deploy'],
  admin: SCOPES,
};

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The stronger of two roles (null: none). */
export function strongerRole(a: Role | null, b: Role | null): Role | null {
  if (a === null) return b;
  if (b === null) return a;
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}

/** The person behind a principal made from a user's console session. */
export interface PrincipalUser {
  id: string;
  email: string;
  name: string | null;
}

/** A role held in a whole workspace (projectId null) or one project, directly or through a group. */
export interface RoleGrant {
  workspaceId: string;
  workspaceSlug: string;
  projectId: string | null;
  projectSlug: string | null;
  role: Role;
}

/** What a signed-in person may reach: read from the database on every request (src/people). */
export interface UserAccess {
  user: PrincipalUser;
  /** Every workspace, every scope: like the instance's admin key. */
  instanceAdmin: boolean;
  /** Direct memberships and group roles, SCIM-suspended workspaces left out. */
  grants: readonly RoleGrant[];
}

/** The user's role in a project: the strongest of the project's grants and the workspace's; null when none. */
export function roleInProject(access: UserAccess, workspaceId: string, projectId: string): Role | null {
  if (access.instanceAdmin) return 'admin';
  let role: Role | null = null;
  for (const grant of access.grants) {
    if (grant.workspaceId === workspaceId && (grant.projectId === null || grant.projectId === projectId)) {
      role = strongerRole(role, grant.role);
    }
  }
  return role;
}

/** The user acting in a project (X-Parley-Project), with their role's scopes; null without a role there. */
export function userInProject(access: UserAccess, project: ProjectRef): ProjectPrincipal | null {
  const role = roleInProject(access, project.workspace_id, project.project_id);
  if (role === null) return null;
  return {
    kind: 'project',
    keyId: null,
    keyName: null,
    user: access.user,
    scopes: ROLE_SCOPES[role],
    environments: null,
    projectId: project.project_id,
    projectSlug: project.project_slug,
    workspaceId: project.workspace_id,
    workspaceSlug: project.workspace_slug,
  };
}

/**
 * The user on the admin routes: an instance admin is the instance's admin; an `admin` of a whole
 * workspace is that workspace's admin (the one named in the path, or their only one). Null otherwise.
 */
export function userAsAdmin(access: UserAccess, workspaceSlug: string | undefined): AdminPrincipal | null {
  const base = { kind: 'admin' as const, keyId: null, keyName: null, user: access.user, scopes: null, environments: null };
  if (access.instanceAdmin) return { ...base, workspaceId: null, workspaceSlug: null };
  const admins = access.grants.filter((grant) => grant.projectId === null && grant.role === 'admin');
  const chosen =
    workspaceSlug === undefined ? (admins.length === 1 ? admins[0] : undefined) : admins.find((g) => g.workspaceSlug === workspaceSlug);
  return chosen ? { ...base, workspaceId: chosen.workspaceId, workspaceSlug: chosen.workspaceSlug } : null;
}
