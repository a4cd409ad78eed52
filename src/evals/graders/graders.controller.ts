import { Body, Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiErrors } from '../../common/swagger/error-responses';
import { GraderDeletedDto, GraderDto, GraderListDto, PutGraderBodyDto } from './grader.dto';
import { GradersService } from './graders.service';

/** Named graders (docs/evals.md, "Graders"). */
@ApiTags('Evaluations')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/graders')
export class GradersController {
  constructor(private readonly graders: GradersService) {}

  @RequireScope('registry:write')
  @Put(':name')
  @ApiOperation({ summary: 'Create or replace a grader', description: 'Runs started before keep the grader as it was.' })
  @ApiBody({ type: PutGraderBodyDto })
  @ApiOkResponse({ type: GraderDto })
  @ApiErrors(400)
  async put(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string, @Body() body: PutGraderBodyDto): Promise<GraderDto> {
    return (await this.graders.put(caller, name, body)).grader;
  }

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({ summary: 'List graders', description: 'By name.' })
  @ApiOkResponse({ type: GraderListDto })
  list(@CurrentProject() caller: ProjectPrincipal): Promise<GraderListDto> {
    return this.graders.list(caller);
  }

  @RequireScope('registry:read')
  @Get(':name')
  @ApiOperation({ summary: 'Get a grader' })
  @ApiOkResponse({ type: GraderDto })
  @ApiErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string): Promise<GraderDto> {
    return this.graders.get(caller, name);
  }

  @RequireScope('registry:write')
  @Delete(':name')
  @ApiOperation({ summary: 'Delete a grader', description: 'Runs that used it keep their scores.' })
  @ApiOkResponse({ type: GraderDeletedDto })
  @ApiErrors(404)
  remove(@CurrentProject() caller: ProjectPrincipal, @Param('name') name: string): Promise<GraderDeletedDto> {
    return this.graders.remove(caller, name);
  }
}
