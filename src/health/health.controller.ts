import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';

import { Public } from '../auth/auth.decorators';
import { serviceError } from '../common/errors';

@ApiTags('Operations')
@Public()
@Controller()
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('health')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' } } } })
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HttpCode(200)
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', example: 'ready' } } } })
  @ApiResponse({ status: 503, description: 'Database unreachable' })
  async ready(): Promise<{ status: 'ready' }> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      throw serviceError(503, 'Service Unavailable', 'Database unavailable', { 'Retry-After': '1' });
    }
    return { status: 'ready' };
  }
}
