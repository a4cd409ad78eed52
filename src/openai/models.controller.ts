import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Model } from 'openai/resources/models';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ModelsService } from './models.service';
import { MODEL_LIST_SCHEMA, MODEL_SCHEMA, OPENAI_ERROR_SCHEMA } from './openai-swagger';

/** OpenAI's model listing: the key's project's deployments and providers' models. */
@ApiTags('OpenAI-compatible')
@ApiSecurity('api-key')
@RequireScope('invoke', 'registry:read')
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @Get()
  @ApiOperation({ summary: 'List models: deployments as slug@environment, then provider/model' })
  @ApiOkResponse({ schema: MODEL_LIST_SCHEMA })
  list(@CurrentProject() caller: ProjectPrincipal) {
    return this.models.list(caller);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a model (a "/" in the id may be sent as %2F or as is)' })
  @ApiOkResponse({ schema: MODEL_SCHEMA })
  @ApiResponse({ status: 404, schema: OPENAI_ERROR_SCHEMA, description: 'unknown model (code model_not_found)' })
  retrieve(@CurrentProject() caller: ProjectPrincipal, @Param('id') id: string): Promise<Model> {
    return this.models.retrieve(caller, id);
  }

  @Get(':provider/:model')
  @ApiOperation({ summary: 'Retrieve a provider/model (the id written with its "/")' })
  @ApiOkResponse({ schema: MODEL_SCHEMA })
  retrieveProviderModel(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('provider') provider: string,
    @Param('model') model: string,
  ): Promise<Model> {
    return this.models.retrieve(caller, `${provider}/${model}`);
  }
}
