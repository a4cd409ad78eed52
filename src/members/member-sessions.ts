import { Injectable } from '@nestjs/common';

import { ConsoleSessionsService } from '../console/console-sessions.service';
import { UserAccessRepository } from '../people/user-access.repository';

/**
 * A person left with no role anywhere (and no instance admin) loses every console session at once,
 * on every instance (docs/security.md, "Roles"). One who keeps a role somewhere keeps their
 * sessions: each request reads their roles again, so what they lost is refused from the next one.
 */
@Injectable()
export class MemberSessions {
  constructor(
    private readonly people: UserAccessRepository,
    private readonly sessions: ConsoleSessionsService,
  ) {}

  /** The sessions ended: 0 while the user still holds a role somewhere. */
  async endIfNoRoleLeft(userId: string): Promise<number> {
    const access = await this.people.accessOf(userId);
    if (access && (access.instanceAdmin || access.grants.length > 0)) return 0;
    return this.sessions.endAllOfUser(userId);
  }

  /** After a change committed: ends the sessions of those of `userIds` left with no role anywhere (two queries for them all). */
  async endWhereRoleless(userIds: Iterable<string>): Promise<number> {
    return this.sessions.endAllOfUsers(await this.people.withoutAnyRole(userIds));
  }
}
