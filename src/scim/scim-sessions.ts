import { Injectable } from '@nestjs/common';

import { ConsoleSessionsService } from '../console/console-sessions.service';
import { UserAccessRepository } from '../people/user-access.repository';

/**
 * Ends the console sessions of people a SCIM change left without any role (docs/security.md,
 * "SCIM"): deactivated, deleted, or out of the last group that gave them one. Their next request
 * is refused on every instance already (each request re-reads their roles); ending the sessions
 * makes it final, so a later reactivation does not bring an old session back.
 */
@Injectable()
export class ScimSessions {
  constructor(
    private readonly people: UserAccessRepository,
    private readonly sessions: ConsoleSessionsService,
  ) {}

  /** After the change committed; one person at a time (SCIM changes are few and small). */
  async endWhereRoleless(userIds: Iterable<string>): Promise<void> {
    for (const userId of new Set(userIds)) {
      const access = await this.people.accessOf(userId);
      if (!access || (!access.instanceAdmin && access.grants.length === 0)) await this.sessions.endAllOfUser(userId);
    }
  }
}
