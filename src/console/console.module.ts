import { Module } from '@nestjs/common';

import { PeopleModule } from '../people/people.module';
import { ConsoleSessionController } from './console-session.controller';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { ConsoleSessionsService } from './console-sessions.service';

/** The web console's server side: sessions (the static files are served by serveConsole). docs/console.md */
@Module({
  imports: [PeopleModule],
  controllers: [ConsoleSessionController],
  providers: [ConsoleSessionsRepository, ConsoleSessionsService],
  exports: [ConsoleSessionsService],
})
export class ConsoleModule {}
