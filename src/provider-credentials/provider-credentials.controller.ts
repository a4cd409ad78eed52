import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { ProviderConnectionTests } from './provider-connection-tests';
import {
  CreateProviderCredentialDto,
  ProviderCredentialBodyDto,
  ProviderCredentialDeletedDto,
  ProviderCredentialDto,
  ProviderCredentialListDto,
  ProviderTestResultDto,
} from './provider-credential.dto';
import { ProviderCredentialsService } from './provider-credentials.service';

@ApiTags('Registry: provider credentials')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/provider-credentials')
export class ProviderCredentialsController {
  constructor(
    private readonly credentials: ProviderCredentialsService,
    private readonly tests: ProviderConnectionTests,
  ) {}

  @Idempotent()
  @RequireScope('providers:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a provider credential',
    description: 'The API key is stored encrypted and never returned by any endpoint.',
  })
  @ApiOkResponse({ type: ProviderCredentialDto })
  @ApiErrors(400, 409)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() dto: CreateProviderCredentialDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<ProviderCredentialDto> {
    return this.credentials.create(caller.projectId, dto, tx);
  }

  @RequireScope('providers:read')
  @Get()
  @ApiOperation({
    summary: 'List provider credentials',
    description: 'The built-in `local` provider first, then by name. Keys are never returned.',
  })
  @ApiOkResponse({ type: ProviderCredentialListDto })
  async list(@CurrentProject() caller: ProjectPrincipal): Promise<ProviderCredentialListDto> {
    return { object: 'list', data: await this.credentials.list(caller.projectId) };
  }

  @RequireScope('providers:write')
  @Put(':name')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create or replace a provider credential',
    description: 'Replaces every field (rotate a key this way); the id stays.',
  })
  @ApiOkResponse({ type: ProviderCredentialDto })
  @ApiErrors(400)
  replace(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('name') name: string,
    @Body() dto: ProviderCredentialBodyDto,
  ): Promise<ProviderCredentialDto> {
    return this.credentials.replace(caller.projectId, name, dto);
  }

  @RequireScope('providers:write')
  @Delete(':name')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a provider credential', description: 'Refused (409) while a current deployment uses it.' })
  @ApiOkResponse({ type: ProviderCredentialDeletedDto })
  @ApiErrors(404, 409)
  delete(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string): Promise<ProviderCredentialDeletedDto> {
    return this.credentials.delete(caller.projectId, name);
  }

  // Writes nothing: with an Idempotency-Key, a retry gets the first test's answer again.
  @Idempotent('repeatable')
  @RequireScope('providers:write')
  @Post(':name/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Test a provider credential',
    description:
      'One small request with the credential (the model list: `GET {baseUrl}/models`, or `GET {baseUrl}/v1/models?limit=1` for `anthropic`), ' +
      'under the outbound policy, without retries, waiting at most 10 s (or PROVIDER_TIMEOUT_MS if shorter). A failing provider is a 200 with `ok: false` and the reason; the key is never in it. Needs `providers:write`: the test spends the key\'s request. docs/providers.md, "Testing a provider"',
  })
  @ApiOkResponse({ type: ProviderTestResultDto })
  @ApiErrors(404)
  test(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string): Promise<ProviderTestResultDto> {
    return this.tests.test(caller.projectId, name);
  }
}
