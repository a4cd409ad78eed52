import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Principal } from '../auth/principal';
import { badRequest, conflict, notFound } from '../common/errors';
import { isUuid } from '../common/ids';
import { pageLimit, toPage } from '../common/pagination';
import { MemberDto, MemberListDto, MemberRemovedDto, MembersQuery, PutMemberDto } from './dto/member.dto';
import { toMemberDto } from './member.mapper';
import { MemberListRepository } from './member-list.repository';
import { MemberPlaces } from './member-places';
import { assertMayGive, isInstanceAdmin, lastAdminMessage, MEMBER_ERRORS, userRefOf } from './member-rules';
import { MemberSessions } from './member-sessions';
import { MemberPlace, MemberWrites } from './member-writes';
import { MembershipRow, MembershipsRepository } from './memberships.repository';
import { UserRow } from './users.repository';

/**
 * Members of a workspace or of one project (docs/security.md, "Roles"): listed, given a role,
 * removed. `project` undefined: the workspace routes (a workspace-wide role; removal takes every
 * membership of the user in the workspace); given: that project's own memberships.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly places: MemberPlaces,
    private readonly list: MemberListRepository,
    private readonly memberships: MembershipsRepository,
    private readonly writes: MemberWrites,
    private readonly sessions: MemberSessions,
  ) {}

  async members(caller: Principal, workspace: string, project: string | undefined, query: MembersQuery): Promise<MemberListDto> {
    const place = await this.places.place(caller, workspace, project);
    if (query.after !== undefined && !isUuid(query.after)) {
      throw badRequest('Invalid request parameters', ["after: expected a member's id (the last_id of the previous page)"]);
    }
    const limit = pageLimit(query);
    const users = await this.list.users(place.workspace.id, place.project?.id ?? null, { after: query.after ?? null, limit });
    const page = toPage(users, limit);
    const grants = await this.list.grants(
      place.workspace.id,
      place.project?.id ?? null,
      page.data.map((user) => user.id),
    );
    return { object: 'list', ...page, data: page.data.map((user) => toMemberDto(user, grants)) };
  }

  /**
   * Gives the user this role here, the user named by id or by e-mail address; an address nobody
   * has signed in with yet gets its user row now, and the role applies from their first sign-in.
   */
  async put(caller: Principal, workspace: string, project: string | undefined, userParam: string, dto: PutMemberDto): Promise<MemberDto> {
    const ref = userRefOf(userParam);
    assertMayGive(caller, dto.role);
    const { place, user } = await this.dataSource.transaction(async (manager) => {
      const place = await this.places.place(caller, workspace, project, manager);
      await this.writes.lockWorkspace(manager, place.workspace.id);
      const found = await this.places.user(caller, place.workspace.id, ref, manager);
      const user = found ?? (await this.writes.userByEmail(manager, place.workspace.id, ref.email!));
      const at = { userId: user.id, workspaceId: place.workspace.id, projectId: place.project?.id ?? null };
      const existing = await this.memberships.find(manager, at);
      if (existing) assertMayGive(caller, existing.role);
      if (!place.project && existing?.role === 'admin' && dto.role !== 'admin') await this.assertNotLastAdmin(manager, caller, place, user);
      await this.writes.setMembership(manager, place, user, dto.role, 'api');
      return { place, user };
    });
    return this.memberOf(place, user.id);
  }

  /**
   * Removes the user's memberships here: on the workspace route every one they have in the
   * workspace, on a project's its own. A user left with no role anywhere loses every console
   * session at once; otherwise each request recomputes what they may reach anyway.
   */
  async remove(caller: Principal, workspace: string, project: string | undefined, userParam: string): Promise<MemberRemovedDto> {
    const ref = userRefOf(userParam);
    const { user, removed } = await this.dataSource.transaction(async (manager) => {
      const place = await this.places.place(caller, workspace, project, manager);
      await this.writes.lockWorkspace(manager, place.workspace.id);
      const user = await this.places.user(caller, place.workspace.id, ref, manager);
      if (!user) throw notFound(MEMBER_ERRORS.memberNotFound);
      const rows = place.project
        ? [await this.memberships.find(manager, { userId: user.id, workspaceId: place.workspace.id, projectId: place.project.id })]
        : await this.memberships.allInWorkspace(manager, user.id, place.workspace.id);
      const removed = rows.filter((row): row is MembershipRow => row !== null);
      if (removed.length === 0) throw notFound(MEMBER_ERRORS.memberNotFound);
      for (const row of removed) assertMayGive(caller, row.role);
      if (!place.project && removed.some((row) => row.project_id === null && row.role === 'admin')) {
        await this.assertNotLastAdmin(manager, caller, place, user);
      }
      for (const row of removed) await this.writes.removeMembership(manager, place.workspace.id, row, user.email);
      return { user, removed: removed.length };
    });
    const sessionsEnded = await this.sessions.endIfNoRoleLeft(user.id);
    return { id: user.id, object: 'member.removed', removed, sessionsEnded };
  }

  /** One member as the list shows them (after a change: what it left). */
  private async memberOf(place: MemberPlace, userId: string): Promise<MemberDto> {
    const projectId = place.project?.id ?? null;
    const [user] = await this.list.users(place.workspace.id, projectId, { after: null, limit: 1, only: userId });
    const grants = await this.list.grants(place.workspace.id, projectId, [userId]);
    return toMemberDto(user, grants);
  }

  /**
   * A person does not step down as the last admin of a workspace (docs/security.md, "Roles"): when
   * they would hold no workspace-wide admin role there any more (no group gives them one) and
   * nobody else holds one directly, 409. Keys and instance admins are not held to it: they can
   * always give the workspace an admin again.
   */
  private async assertNotLastAdmin(manager: EntityManager, caller: Principal, place: MemberPlace, user: UserRow): Promise<void> {
    if (!caller.user || caller.user.id !== user.id || isInstanceAdmin(caller)) return;
    const grants = await this.list.grants(place.workspace.id, null, [user.id], manager);
    const viaGroup = grants.some((grant) => grant.source === 'group' && grant.project_id === null && grant.role === 'admin');
    if (viaGroup || (await this.memberships.otherWorkspaceAdmins(manager, place.workspace.id, user.id)) > 0) return;
    throw conflict(lastAdminMessage(place.workspace.slug));
  }
}
