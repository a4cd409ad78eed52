import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiErrors } from '../../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { CreateEnvironmentDto, EnvironmentDto, EnvironmentListDto } from './environment.dto';
import { EnvironmentsService } from './environments.service';

@ApiTags('Registry: environments')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/environments')
export class EnvironmentsController {
  constructor(private readonly environments: EnvironmentsService) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create an environment', description: 'Every project starts with preview, staging and production.' })
  @ApiOkResponse({ type: EnvironmentDto })
  @ApiErrors(400, 409)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() dto: CreateEnvironmentDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<EnvironmentDto> {
    return this.environments.createIn(tx, caller.projectId, dto.slug);
  }

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({ summary: 'List the environments of the project', description: 'Sorted by slug.' })
  @ApiOkResponse({ type: EnvironmentListDto })
  async list(@CurrentProject() caller: ProjectPrincipal): Promise<EnvironmentListDto> {
    return { object: 'list', data: await this.environments.list(caller.projectId) };
  }
}
