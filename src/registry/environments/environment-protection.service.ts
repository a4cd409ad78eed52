import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { ProjectPrincipal } from '../../auth/principal';
import { forbidden, notFound } from '../../common/errors';
import { isSlugLike } from '../../common/validation/slug';
import { EnvironmentDto, EnvironmentProtectionDto } from './environment.dto';
import { EnvironmentsRepository } from './environments.repository';
import { toEnvironmentDto } from './environments.service';

/** Who may change a protection: a person (the project's admin role) or the admin key, never a project key. */
export const PROTECTION_NEEDS_PERSON =
  "An environment's protection is changed by a project admin signed in to the console, or with the admin key; a project key cannot change it";

/**
 * An environment's protection (docs/security.md, "Approvals"): whether deploys there wait for a
 * second person, and whether keys may deploy there at all. The route needs `members:manage` (the
 * admin role); a project key is refused even with it, so a key barred from an environment cannot
 * lift the bar. Every change is audited.
 */
@Injectable()
export class EnvironmentProtectionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly environments: EnvironmentsRepository,
    private readonly audit: AuditLog,
  ) {}

  put(caller: ProjectPrincipal, slug: string, protection: EnvironmentProtectionDto): Promise<EnvironmentDto> {
    return this.change(caller, slug, protection.requireApproval, protection.barKeys);
  }

  remove(caller: ProjectPrincipal, slug: string): Promise<EnvironmentDto> {
    return this.change(caller, slug, false, false);
  }

  private async change(caller: ProjectPrincipal, slug: string, requiresApproval: boolean, barsKeys: boolean): Promise<EnvironmentDto> {
    if (!caller.user && !caller.actingAdmin) throw forbidden(PROTECTION_NEEDS_PERSON);
    const { projectId } = caller;
    return this.dataSource.transaction(async (manager) => {
      const environment = isSlugLike(slug) ? await this.environments.findBySlugForUpdate(manager, projectId, slug) : null;
      if (!environment) throw notFound('Environment not found');
      const before = toEnvironmentDto(environment).protection;
      await this.environments.setProtection(manager, projectId, environment.id, requiresApproval, barsKeys);
      const after = toEnvironmentDto(Object.assign(environment, { requiresApproval, barsKeys }));
      await this.audit.record(manager, {
        projectId,
        action: after.protection ? 'environment.protection_set' : 'environment.protection_removed',
        resourceType: 'environment',
        resourceId: slug,
        before: before ? { ...before } : null,
        after: after.protection ? { ...after.protection } : null,
      });
      return after;
    });
  }
}
