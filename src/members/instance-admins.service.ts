import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { InstanceAuditLog } from '../audit/instance-audit-log';
import { Principal } from '../auth/principal';
import { badRequest, conflict, notFound } from '../common/errors';
import { isUuid } from '../common/ids';
import { pageLimit, toPage } from '../common/pagination';
import { UserDto, UserListDto, UsersQuery } from './dto/user.dto';
import { toUserDto } from './member.mapper';
import { LAST_INSTANCE_ADMIN, MEMBER_ERRORS, userRefOf } from './member-rules';
import { MemberSessions } from './member-sessions';
import { MemberWrites } from './member-writes';
import { UsersRepository } from './users.repository';

/**
 * The instance's users and its admins (docs/security.md, "Instance admins"): people who reach every
 * workspace with every scope, as the instance's admin key does. Only the instance's admin (its key,
 * or an instance admin person) lists users and makes or unmakes instance admins.
 */
@Injectable()
export class InstanceAdminsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
    private readonly writes: MemberWrites,
    private readonly audit: InstanceAuditLog,
    private readonly sessions: MemberSessions,
  ) {}

  async list(query: UsersQuery): Promise<UserListDto> {
    if (query.after !== undefined && !isUuid(query.after)) {
      throw badRequest('Invalid request parameters', ["after: expected a user's id (the last_id of the previous page)"]);
    }
    const limit = pageLimit(query);
    const page = toPage(await this.users.list(query.after ?? null, limit), limit);
    return { object: 'list', ...page, data: page.data.map(toUserDto) };
  }

  /** By id, or by e-mail address: an address nobody has signed in with yet gets its user row, an admin from the first sign-in. */
  grant(userParam: string): Promise<UserDto> {
    const ref = userRefOf(userParam);
    return this.dataSource.transaction(async (manager) => {
      const found =
        ref.id !== undefined ? await this.users.findById(ref.id, manager) : await this.writes.userByEmail(manager, null, ref.email);
      if (!found) throw notFound(MEMBER_ERRORS.userNotFound);
      if (found.instance_admin) return toUserDto(found);
      const user = await this.users.setInstanceAdmin(manager, found.id, true);
      await this.audit.record(manager, {
        workspaceId: null,
        action: 'user.instance_admin_granted',
        resourceType: 'user',
        resourceId: user.id,
        before: { email: user.email, instanceAdmin: false },
        after: { email: user.email, instanceAdmin: true },
      });
      return toUserDto(user);
    });
  }

  /**
   * A person does not give up being an instance admin when no other active user is one (409): the
   * admin key from the environment could still recover, but an instance run by people alone would
   * be left without one. A user left with no role anywhere loses their console sessions at once.
   */
  async revoke(caller: Principal, userParam: string): Promise<UserDto> {
    const ref = userRefOf(userParam);
    const { user, changed } = await this.dataSource.transaction(async (manager) => {
      const found = ref.id !== undefined ? await this.users.findById(ref.id, manager) : await this.users.findByEmail(ref.email, manager);
      if (!found) throw notFound(MEMBER_ERRORS.userNotFound);
      if (!found.instance_admin) return { user: found, changed: false };
      if (caller.user?.id === found.id && (await this.users.otherInstanceAdmins(manager, found.id)) === 0) {
        throw conflict(LAST_INSTANCE_ADMIN);
      }
      const user = await this.users.setInstanceAdmin(manager, found.id, false);
      await this.audit.record(manager, {
        workspaceId: null,
        action: 'user.instance_admin_revoked',
        resourceType: 'user',
        resourceId: user.id,
        before: { email: user.email, instanceAdmin: true },
        after: { email: user.email, instanceAdmin: false },
      });
      return { user, changed: true };
    });
    if (changed) await this.sessions.endIfNoRoleLeft(user.id);
    return toUserDto(user);
  }
}
