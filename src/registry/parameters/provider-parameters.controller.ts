import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { RequireScope } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/swagger/error-responses';
import { parameterCatalogue } from '../content/parameter-catalogue';
import { ProviderParametersListDto } from './provider-parameters.dto';

/** The model parameters a version stores, per provider type: what the console's playground offers controls for. */
@ApiTags('Registry: provider credentials')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/providers')
export class ProviderParametersController {
  @RequireScope('registry:read', 'providers:read')
  @Get('parameters')
  @ApiOperation({
    summary: 'List the model parameters of each provider type',
    description:
      "Each parameter a version's `parameters` may hold, read from the same schema that validates them: its bounds or values, the provider's default where known, and whether a provider of that type is sent it. The same for every project.",
  })
  @ApiOkResponse({ type: ProviderParametersListDto })
  list(): ProviderParametersListDto {
    return { object: 'list', data: parameterCatalogue() };
  }
}
