import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOrProject, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { openApiSchemaOf } from '../common/swagger/zod-schema';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { ImportFacade } from './import.facade';
import { ImportSummary } from './import.service';
import { importBodySchema, importTargetOf, parseImportBody } from './import-target';

@ApiTags('Import')
@ApiSecurity('api-key')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOrProject()
@RequireScope('threads:write')
@Controller('v2/import')
export class ImportController {
  constructor(private readonly importer: ImportFacade) {}

  // Repeatable: ids are derived from the export's, so a retry after a crash creates nothing twice.
  @Idempotent('repeatable')
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import Assistants API threads',
    description:
      '`records` are the lines of an Assistants API export (thread and thread.message objects). Idempotent: ids are derived from ' +
      'the project and the original ids, so importing again creates nothing new. One transaction per thread. See docs/import.md.',
  })
  @ApiBody({ schema: openApiSchemaOf(importBodySchema) })
  @ApiOkResponse({
    description: '{threads_created, messages_created, threads: [{source_id, thread_id, action, messages_created, messages_existing}]}',
  })
  @ApiErrors(400, 404)
  importAssistantsThreads(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<ImportSummary> {
    const parsed = parseImportBody(body);
    return this.importer.run(importTargetOf(principal, parsed), parsed.records);
  }
}
