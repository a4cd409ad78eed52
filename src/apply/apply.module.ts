import { Module } from '@nestjs/common';

import { ConsoleSessionsRepository } from '../console/console-sessions.repository';
import { DatasetsRepository } from '../evals/datasets/datasets.repository';
import { GradersRepository } from '../evals/graders/graders.repository';
import { GradersService } from '../evals/graders/graders.service';
import { LimitsModule } from '../limits/limits.module';
import { GroupRolesRepository } from '../members/group-roles.repository';
import { MemberWrites } from '../members/member-writes';
import { MembershipsRepository } from '../members/memberships.repository';
import { UsersRepository } from '../members/users.repository';
import { UserAccessRepository } from '../people/user-access.repository';
import { RegistryModule } from '../registry/registry.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { PricingModule } from '../usage/pricing/pricing.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ApplyController } from './apply.controller';
import { ApplyService } from './apply.service';
import { ApplyAccess } from './apply-access';
import { ApplyDeploys } from './apply-deploys';
import { ApplyEvals } from './apply-evals';
import { ApplyLifecycle } from './apply-lifecycle';
import { ExportService } from './export.service';
import { ExportEvals } from './export-evals';

/**
 * parley.yaml in and out: `parley apply` / POST /v2/apply, `parley export` / GET /v2/export.
 * Graders and datasets through their repositories (stateless), not EvalsModule: that would bring
 * the experiment runs' worker into every process that applies a file, the CLI's included. The
 * `access` block's writes likewise (MemberWrites and its repositories, and the two repositories that
 * end a removed person's sessions), not MembersModule and the console's sessions service it brings.
 */
@Module({
  imports: [WorkspacesModule, RegistryModule, RegistryCacheModule, LimitsModule, PricingModule],
  controllers: [ApplyController],
  providers: [
    ApplyService,
    ExportService,
    ApplyEvals,
    ApplyDeploys,
    ApplyAccess,
    ApplyLifecycle,
    ExportEvals,
    DatasetsRepository,
    GradersRepository,
    GradersService,
    MemberWrites,
    UsersRepository,
    MembershipsRepository,
    GroupRolesRepository,
    UserAccessRepository,
    ConsoleSessionsRepository,
  ],
  exports: [ApplyService, ExportService],
})
export class ApplyModule {}
