import { createHash, timingSafeEqual } from 'node:crypto';

import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

import { Public } from '../auth/auth.decorators';
import { serviceError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { MetricsService } from './metrics.service';

const digest = (text: string) => createHash('sha256').update(text).digest();

@ApiTags('Operations')
@Public()
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @ApiOperation({
    summary: 'Prometheus metrics (text exposition format)',
    description:
      'Metric names and labels: docs/operations.md. Open, unless METRICS_TOKEN is set: then `Authorization: Bearer <METRICS_TOKEN>`.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4', schema: { type: 'string' } })
  @ApiResponse({ status: 401, description: 'METRICS_TOKEN is set and the request does not carry it' })
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    const token = this.config.metricsToken;
    // Compared as digests: constant time whatever the lengths.
    if (token && !timingSafeEqual(digest(authorization ?? ''), digest(`Bearer ${token}`))) {
      throw serviceError(401, 'Unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    const body = await this.metrics.metrics();
    // end(), not send(): send() rewrites the content type's parameters into another order.
    res.status(200).setHeader('Content-Type', this.metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  }
}
