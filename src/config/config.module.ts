import { Global, Module } from '@nestjs/common';

import { AppConfig, loadAppConfig } from './app-config';

/** Provides the validated AppConfig everywhere; a bad environment stops the start with a clear list. */
@Global()
@Module({
  providers: [{ provide: AppConfig, useFactory: () => loadAppConfig() }],
  exports: [AppConfig],
})
export class ConfigModule {}
