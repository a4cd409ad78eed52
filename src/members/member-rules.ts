import { Principal } from '../auth/principal';
import { Role, ROLE_SCOPES } from '../auth/roles';
import { Scope, scopesBeyond } from '../auth/scopes';
import { badRequest, forbidden, notFound } from '../common/errors';
import { isUuid } from '../common/ids';

/**
 * The rules of the members API that need no database (docs/security.md, "Roles"): how a user is
 * named in a path, what a group's name may be, and what a caller may give.
 */

/** users.email is varchar(320): the longest address SMTP allows. */
export const MAX_EMAIL_LENGTH = 320;
/** group_roles.group_name is varchar(200). */
export const MAX_GROUP_NAME_LENGTH = 200;

/** An address with one `@`, something on each side and a dot in the domain; no spaces or control characters. */
const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

export const isEmail = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(value);

/** The messages the members API answers with, shared with its controller-tier fakes. */
export const MEMBER_ERRORS = {
  workspaceNotFound: 'Workspace not found',
  projectNotFound: 'Project not found',
  userNotFound: 'User not found',
  memberNotFound: 'Member not found',
  groupRoleNotFound: 'Group role not found',
  badUser: 'Invalid request parameters',
  badUserDetail: 'user: expected a user id or an e-mail address',
  badGroup: 'Invalid request parameters',
} as const;

/** The 409 of a person stepping down as a workspace's last admin (docs/security.md, "Roles"). */
export const lastAdminMessage = (workspace: string) =>
  `You are the only admin of workspace "${workspace}": make someone else its admin before you give up the role`;
export const LAST_INSTANCE_ADMIN = 'You are the only instance admin: make someone else one before you give up the role';

/** `{user}` in a path: a user's id, or their e-mail address (any case). */
export type UserRef = { id: string; email?: undefined } | { email: string; id?: undefined };

export function userRefOf(value: string): UserRef {
  if (isUuid(value)) return { id: value.toLowerCase() };
  if (isEmail(value)) return { email: value };
  throw badRequest(MEMBER_ERRORS.badUser, [MEMBER_ERRORS.badUserDetail]);
}

/** A group as the identity provider names it (the groups claim's value, or a SCIM group's displayName). */
export function groupNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > MAX_GROUP_NAME_LENGTH) return `group: expected 1 to ${MAX_GROUP_NAME_LENGTH} characters`;
  if (/\p{Cc}/u.test(name)) return 'group: control characters are not allowed';
  if (name.trim() !== name) return 'group: no leading or trailing spaces';
  return null;
}

export function assertGroupName(name: string): void {
  const problem = groupNameProblem(name);
  if (problem) throw badRequest(MEMBER_ERRORS.badGroup, [problem]);
}

/**
 * A caller never gives a role, nor changes or removes one, that can do more than the caller itself
 * (docs/security.md, "Roles"): as a key never makes a key with more scopes than its own. The admin
 * keys and admins (every scope) give any role; a key limited to some environments gives none.
 */
export function assertMayGive(caller: { scopes: readonly Scope[] | null; environments?: readonly string[] | null }, role: Role): void {
  // Roles reach every environment, so a key limited to some cannot give one (as it cannot make an unlimited key).
  if (caller.environments) {
    throw forbidden(
      `A key limited to some environments (${caller.environments.join(', ')}) cannot give roles: roles reach every environment`,
    );
  }
  const beyond = scopesBeyond(caller.scopes, ROLE_SCOPES[role]);
  if (beyond.length > 0) throw forbidden(`The ${role} role holds scopes this caller does not hold: ${beyond.join(', ')}`);
}

/** A project caller (a key, or a person acting in it) reaches its own project only; any other is not found. */
export function assertOwnProject(caller: Principal, workspaceSlug: string, projectSlug: string): void {
  if (caller.kind === 'project' && (caller.workspaceSlug !== workspaceSlug || caller.projectSlug !== projectSlug)) {
    throw notFound(MEMBER_ERRORS.projectNotFound);
  }
}

/** The instance's admin: its key, or a person who is an instance admin. */
export const isInstanceAdmin = (caller: Principal): boolean => caller.kind === 'admin' && caller.workspaceId === null;
