import { Global, Module } from '@nestjs/common';

import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { PoolMetrics } from './pool-metrics';
import { TelemetryMetrics } from './telemetry-metrics';

/** Global: the HTTP middleware (app.setup.ts) and the invoke path record into the one MetricsService. */
@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, PoolMetrics, TelemetryMetrics], exports: [MetricsService] })
export class MetricsModule {}
