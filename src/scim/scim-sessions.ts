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

  /** After the change committed: one query finds who is left without a role, one ends their sessions (a group of thousands included). */
  async endWhereRoleless(userIds: Iterable<string>): Promise<void> {
    await this.sessions.endAllOfUsers(await this.people.withoutAnyRole(userIds));
  }
}
