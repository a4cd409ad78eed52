import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

import { Role, ROLES } from '../../auth/roles';
import { PageQuery } from '../../common/pagination';
import { IsSlug, Optional } from '../../common/validation';

/** PUT .../members/{user}: the role to give (docs/security.md, "Roles"). */
export class PutMemberDto {
  @ApiProperty({ enum: ROLES, example: 'editor', description: 'viewer < editor < deployer < admin; the strongest of a user’s roles wins' })
  @IsIn(ROLES)
  role: Role;
}

/** PUT /v2/workspaces/{workspace}/group-roles/{group}: `project` absent gives the role in the whole workspace. */
export class PutGroupRoleDto extends PutMemberDto {
  @Optional()
  @IsSlug('support')
  project?: string;
}

/** DELETE /v2/workspaces/{workspace}/group-roles/{group}?project=: the role in that project; absent: the workspace-wide one. */
export class GroupRoleQuery {
  @Optional()
  @IsSlug('support')
  project?: string;
}

export class MembersQuery extends PageQuery {}

export class MemberUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ana@example.com' }) email: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Ana Lima',
    description: 'from the identity provider; null until the first sign-in',
  })
  name: string | null;
}

export type RoleSource = 'direct' | 'group';
export type ManagedBy = 'api' | 'apply';

/** One role a user holds here: a membership (direct) or a group role their groups give them. */
export class MemberGrantDto {
  @ApiProperty({ type: String, nullable: true, example: null, description: "the project's slug; null: the whole workspace" })
  project: string | null;
  @ApiProperty({ enum: ROLES }) role: Role;
  @ApiProperty({ enum: ['direct', 'group'] }) source: RoleSource;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'the group that gives it (source `group`)' })
  group: string | null;
  @ApiProperty({
    enum: ['api', 'apply'],
    description: '`apply`: made by parley.yaml (docs/apply.md, "Access"), which removes it when the file stops listing it',
  })
  managedBy: ManagedBy;
}

export class MemberProjectRoleDto {
  @ApiProperty({ example: 'support' }) project: string;
  @ApiProperty({ enum: ROLES, description: "the strongest of the user's roles given in this project itself" }) role: Role;
}

export class MemberDto {
  @ApiProperty({ enum: ['member'] }) object: 'member';
  @ApiProperty({ format: 'uuid', description: "the user's id (the list's cursor)" }) id: string;
  @ApiProperty({ type: MemberUserDto }) user: MemberUserDto;
  @ApiProperty({
    enum: ROLES,
    nullable: true,
    type: String,
    description: 'the strongest role held in the whole workspace (directly or through a group); null: none',
  })
  role: Role | null;
  @ApiProperty({ type: [MemberProjectRoleDto], description: 'roles given in single projects' }) projects: MemberProjectRoleDto[];
  @ApiProperty({
    enum: ['direct', 'group'],
    description: '`direct` when the user has a membership here, `group` when only groups give roles',
  })
  source: RoleSource;
  @ApiProperty({ type: [MemberGrantDto] }) grants: MemberGrantDto[];
  @ApiProperty({
    description: "false when the user is deactivated, or this workspace's directory (SCIM) suspended them: their roles here do nothing",
  })
  active: boolean;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'null: has not signed in yet' })
  lastSignInAt: string | null;
}

export class MemberListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [MemberDto] }) data: MemberDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
}

export class MemberRemovedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['member.removed'] }) object: 'member.removed';
  @ApiProperty({ example: 2, description: 'memberships removed: the workspace-wide one and those in its projects (workspace route)' })
  removed: number;
  @ApiProperty({ example: 1, description: "the user's console sessions ended: all of them when no role is left anywhere, else none" })
  sessionsEnded: number;
}

export class GroupRoleDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['group_role'] }) object: 'group_role';
  @ApiProperty({ example: 'support-leads' }) group: string;
  @ApiProperty({ type: String, nullable: true, example: null, description: "the project's slug; null: the whole workspace" })
  project: string | null;
  @ApiProperty({ enum: ROLES }) role: Role;
  @ApiProperty({ enum: ['api', 'apply'] }) managedBy: ManagedBy;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class GroupRoleListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [GroupRoleDto] }) data: GroupRoleDto[];
}

export class GroupRoleRemovedDto {
  @ApiProperty({ enum: ['group_role.removed'] }) object: 'group_role.removed';
  @ApiProperty({ example: 'support-leads' }) group: string;
  @ApiProperty({ type: String, nullable: true }) project: string | null;
  @ApiProperty({ enum: [true] }) removed: true;
}
