import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { Telemetry } from './telemetry';

/** Flushes the export when the application shuts down, after the HTTP server drained. */
@Injectable()
class TelemetryShutdown implements OnApplicationShutdown {
  constructor(@Inject(Telemetry) private readonly telemetry: Telemetry) {}

  onApplicationShutdown(): Promise<void> {
    return this.telemetry.shutdown();
  }
}

/** Global, as config and metrics are: the edge (app.setup.ts), GET /metrics and background work read it. */
@Global()
@Module({
  providers: [
    { provide: Telemetry, inject: [AppConfig], useFactory: (config: AppConfig) => Telemetry.start(config.telemetry) },
    TelemetryShutdown,
  ],
  exports: [Telemetry],
})
export class TelemetryModule {}
