import { Module } from '@nestjs/common';

import { ConsoleModule } from '../console/console.module';
import { PeopleModule } from '../people/people.module';
import { ScimDiscoveryController, ScimFallbackController } from './scim-discovery.controller';
import { ScimGroupsController } from './scim-groups.controller';
import { ScimGroupsRepository } from './scim-groups.repository';
import { ScimGroupsService } from './scim-groups.service';
import { ScimTokenGuard } from './scim-http';
import { ScimSessions } from './scim-sessions';
import { ScimTokensController } from './scim-tokens.controller';
import { ScimTokensService } from './scim-tokens.service';
import { ScimUsersController } from './scim-users.controller';
import { ScimUsersRepository } from './scim-users.repository';
import { ScimUsersService } from './scim-users.service';

/**
 * SCIM 2.0 provisioning (docs/security.md, "SCIM"): a workspace's tokens (admin API) and the
 * `/scim/v2` surface an identity provider calls with one. Imports ConsoleModule for
 * ConsoleSessionsService.endAllOfUser (a deprovisioned person's sessions end).
 */
@Module({
  imports: [PeopleModule, ConsoleModule],
  // The fallback last: its `*path` would take every SCIM route registered after it.
  controllers: [ScimTokensController, ScimDiscoveryController, ScimUsersController, ScimGroupsController, ScimFallbackController],
  providers: [
    ScimTokensService,
    ScimTokenGuard,
    ScimUsersRepository,
    ScimUsersService,
    ScimGroupsRepository,
    ScimGroupsService,
    ScimSessions,
  ],
})
export class ScimModule {}
