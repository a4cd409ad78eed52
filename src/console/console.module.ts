import { Module } from '@nestjs/common';

import { PeopleModule } from '../people/people.module';
import { ConsoleSessionController } from './console-session.controller';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { ConsoleSessionsService } from './console-sessions.service';
import { OidcClient } from './oidc/oidc-client';
import { OidcSignInController } from './oidc/oidc-sign-in.controller';
import { OidcSignInService } from './oidc/oidc-sign-in.service';
import { OidcUsersRepository } from './oidc/oidc-users.repository';
import { PersonSessions } from './person-session';

/** The web console's server side: sessions, made from a key or by signing in with OpenID Connect (the static files are served by serveConsole). docs/console.md */
@Module({
  imports: [PeopleModule],
  controllers: [ConsoleSessionController, OidcSignInController],
  providers: [ConsoleSessionsRepository, ConsoleSessionsService, PersonSessions, OidcClient, OidcUsersRepository, OidcSignInService],
  exports: [ConsoleSessionsService],
})
export class ConsoleModule {}
