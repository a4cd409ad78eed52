import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { InstanceAuditEventListDto, InstanceAuditQuery } from './instance-audit-trail.dto';
import { InstanceAuditTrailService } from './instance-audit-trail.service';

@ApiTags('Audit trail')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOnly()
@RequireScope('audit:read')
@Controller('v2/admin/audit')
export class InstanceAuditTrailController {
  constructor(private readonly trail: InstanceAuditTrailService) {}

  @Get()
  @ApiOperation({
    summary: "List the instance's audit trail",
    description:
      'What happens above any one project: workspaces and projects created, workspace admin keys created and revoked, members, sign-ins and failed sign-ins, SCIM changes. ' +
      'Who (the person by user id and e-mail, or the key), what, before and after (never a secret), when, the request id and the client address. ' +
      "The instance's admin (key or person) reads every event (`workspace` narrows it to one); a workspace's admin reads that workspace's only. " +
      'Newest first; filters combine with AND; `after` is the last id of the previous page. Append-only; kept for AUDIT_RETENTION_DAYS. See docs/security.md, "Audit trail".',
  })
  @ApiOkResponse({ type: InstanceAuditEventListDto })
  @ApiErrors(400, 404)
  list(@CurrentPrincipal() caller: Principal, @Query() query: InstanceAuditQuery): Promise<InstanceAuditEventListDto> {
    return this.trail.list(caller, query);
  }
}
