import { Module } from '@nestjs/common';

import { ConsoleSessionController } from './console-session.controller';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { ConsoleSessionsService } from './console-sessions.service';

/** The web console's server side: sessions (the static files are served by serveConsole). docs/console.md */
@Module({
  controllers: [ConsoleSessionController],
  providers: [ConsoleSessionsRepository, ConsoleSessionsService],
})
export class ConsoleModule {}
