import { Global, Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { createPino, PinoNestLogger } from './app-logger';

/** The app's one pino logger, behind Nest's LoggerService (app.setup.ts installs it). */
@Global()
@Module({
  providers: [
    { provide: PinoNestLogger, inject: [AppConfig], useFactory: (config: AppConfig) => new PinoNestLogger(createPino(config.logLevel)) },
  ],
  exports: [PinoNestLogger],
})
export class LoggingModule {}
