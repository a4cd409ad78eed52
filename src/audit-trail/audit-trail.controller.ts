import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { AuditEventListDto, AuditQuery } from './audit-trail.dto';
import { AuditTrailService } from './audit-trail.service';

@ApiTags('Audit trail')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@RequireScope('audit:read')
@Controller('v2/audit')
export class AuditTrailController {
  constructor(private readonly trail: AuditTrailService) {}

  @Get()
  @ApiOperation({
    summary: 'List the audit trail',
    description:
      "Every change to the project's prompts, versions, deployments, environments, provider credentials, keys, scopes and limits: who (the person signed in to the console, by user id and e-mail, or the key, by id and name), what, before and after (never a secret), when, request id. " +
      'Newest first; filters combine with AND (`actorUserId`, `actorEmail`: the person; `actorKeyId`: the key); `after` is the last id of the previous page. Append-only; kept for AUDIT_RETENTION_DAYS. See docs/security.md, "Audit trail".',
  })
  @ApiOkResponse({ type: AuditEventListDto })
  @ApiErrors(400)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: AuditQuery): Promise<AuditEventListDto> {
    return this.trail.list(caller.projectId, query);
  }
}
