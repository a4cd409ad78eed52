import { Module } from '@nestjs/common';

import { ConsoleModule } from '../console/console.module';
import { PeopleModule } from '../people/people.module';
import { GroupRolesController } from './group-roles.controller';
import { GroupRolesRepository } from './group-roles.repository';
import { GroupRolesService } from './group-roles.service';
import { InstanceAdminsController } from './instance-admins.controller';
import { InstanceAdminsService } from './instance-admins.service';
import { MemberListRepository } from './member-list.repository';
import { MemberPlaces } from './member-places';
import { MemberSessions } from './member-sessions';
import { MemberWrites } from './member-writes';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { MembershipsRepository } from './memberships.repository';
import { ProjectMembersController } from './project-members.controller';
import { UsersRepository } from './users.repository';

/** The members API: users' roles in workspaces and projects, group roles, instance admins (docs/security.md, "Roles"). */
@Module({
  imports: [PeopleModule, ConsoleModule],
  controllers: [MembersController, ProjectMembersController, GroupRolesController, InstanceAdminsController],
  providers: [
    UsersRepository,
    MembershipsRepository,
    GroupRolesRepository,
    MemberListRepository,
    MemberPlaces,
    MemberWrites,
    MemberSessions,
    MembersService,
    GroupRolesService,
    InstanceAdminsService,
  ],
})
export class MembersModule {}
