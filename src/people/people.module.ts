import { Module } from '@nestjs/common';

import { UserAccessRepository } from './user-access.repository';

/** People who sign in (docs/security.md, "Sign-in", "Roles"): users, their memberships and groups. */
@Module({
  providers: [UserAccessRepository],
  exports: [UserAccessRepository],
})
export class PeopleModule {}
