import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { Counter } from 'prom-client';

import { Telemetry } from '../telemetry/telemetry';
import { MetricsService } from './metrics.service';

/**
 * The OpenTelemetry export's own health on GET /metrics, while traces are exported: spans
 * exported, dropped (the export's queue was full: the collector is down or slow) and failed to
 * export, since start (docs/observability.md, "When the collector is down"). Read at each scrape.
 */
@Injectable()
export class TelemetryMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    @Optional() private readonly telemetry?: Telemetry,
  ) {}

  onModuleInit(): void {
    const telemetry = this.telemetry;
    if (!telemetry?.spanCounts) return;
    new Counter({
      name: 'parley_telemetry_spans_total',
      help: 'Finished spans of the OpenTelemetry export by outcome: exported, dropped (queue full) or failed (the export failed)',
      labelNames: ['outcome'] as const,
      registers: [this.metrics.registry],
      collect() {
        const counts = telemetry.spanCounts;
        if (!counts) return;
        this.reset();
        for (const outcome of ['exported', 'dropped', 'failed'] as const) this.inc({ outcome }, counts[outcome]);
      },
    });
  }
}
