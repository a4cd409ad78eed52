import { strongerRole } from '../auth/roles';
import type { GroupRoleDto, MemberDto, MemberProjectRoleDto } from './dto/member.dto';
import type { UserDto } from './dto/user.dto';
import type { GroupRoleRow } from './group-roles.repository';
import type { MemberGrantRow, MemberUserRow } from './member-list.repository';
import type { UserRow } from './users.repository';

/** A member: their roles here, the strongest workspace-wide one and the strongest per project (the strongest wins). */
export function toMemberDto(user: MemberUserRow, grants: MemberGrantRow[]): MemberDto {
  const own = grants.filter((grant) => grant.user_id === user.id);
  let role: MemberDto['role'] = null;
  const projects = new Map<string, MemberProjectRoleDto>();
  for (const grant of own) {
    if (grant.project_slug === null) role = strongerRole(role, grant.role);
    else {
      const held = projects.get(grant.project_slug);
      projects.set(grant.project_slug, { project: grant.project_slug, role: strongerRole(held?.role ?? null, grant.role)! });
    }
  }
  return {
    object: 'member',
    id: user.id,
    user: { id: user.id, email: user.email, name: user.name },
    role,
    projects: [...projects.values()].sort((a, b) => a.project.localeCompare(b.project)),
    source: own.some((grant) => grant.source === 'direct') ? 'direct' : 'group',
    grants: own.map((grant) => ({
      project: grant.project_slug,
      role: grant.role,
      source: grant.source,
      group: grant.group_name,
      managedBy: grant.managed_by,
    })),
    active: user.active,
    lastSignInAt: user.last_sign_in_at ? new Date(user.last_sign_in_at).toISOString() : null,
  };
}

export const toGroupRoleDto = (row: GroupRoleRow): GroupRoleDto => ({
  id: row.id,
  object: 'group_role',
  group: row.group_name,
  project: row.project_slug,
  role: row.role,
  managedBy: row.managed_by,
  createdAt: new Date(row.created_at).toISOString(),
});

export const toUserDto = (row: UserRow): UserDto => ({
  id: row.id,
  object: 'user',
  email: row.email,
  name: row.name,
  active: row.active,
  instanceAdmin: row.instance_admin,
  createdAt: new Date(row.created_at).toISOString(),
  lastSignInAt: row.last_sign_in_at ? new Date(row.last_sign_in_at).toISOString() : null,
});
