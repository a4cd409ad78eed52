import { ApiProperty } from '@nestjs/swagger';

import { Role, ROLES } from '../auth/roles';
import { Scope, SCOPES } from '../auth/scopes';
import { Text } from '../common/validation';

export class CreateConsoleSessionDto {
  @Text({
    min: 1,
    max: 200,
    example: 'pk_...',
    description: 'a project key or the admin key; exchanged for the session cookie and never kept',
  })
  key: string;
}

export class ConsoleUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ nullable: true, type: String, example: 'Ada Lovelace' }) name: string | null;
}

export class ConsoleMembershipDto {
  @ApiProperty({ example: 'default' }) workspace: string;
  @ApiProperty({ nullable: true, type: String, example: 'default', description: 'null: the whole workspace' }) project: string | null;
  @ApiProperty({ enum: ROLES }) role: Role;
}

export class ConsoleProjectChoiceDto {
  @ApiProperty({ example: 'default' }) workspace: string;
  @ApiProperty({ example: 'default' }) project: string;
  @ApiProperty({ enum: ROLES, description: "the strongest of the roles the person holds there (the project's and its workspace's)" })
  role: Role;
}

export class ConsoleSessionDto {
  @ApiProperty({ enum: ['console.session'] }) object: 'console.session';
  @ApiProperty({
    enum: ['project', 'admin', 'user'],
    description: 'what the session stands for: a project key, an admin key, or a person signed in with OpenID Connect',
  })
  kind: 'project' | 'admin' | 'user';
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'default',
    description: "the project key's workspace; a person's chosen project's (X-Parley-Project); null for the admin key",
  })
  workspace: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'default',
    description:
      "the project key's project; a person's chosen project (X-Parley-Project, when they hold a role there); null for the admin key",
  })
  project: string | null;
  @ApiProperty({
    type: [String],
    enum: SCOPES,
    nullable: true,
    description:
      "the key's scopes (docs/security.md, \"Scopes\"), or a person's role's in the chosen project; null: every scope (an instance admin)",
  })
  scopes: Scope[] | null;
  @ApiProperty({ type: [String], nullable: true, description: 'the environments the key may invoke; null: all' })
  environments: string[] | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'when the session ends; null when the caller used a key, not a session',
  })
  expiresAt: string | null;
  @ApiProperty({ required: false, type: ConsoleUserDto, description: 'a person: who signed in (absent for a key)' })
  user?: ConsoleUserDto;
  @ApiProperty({ required: false, description: 'a person: whether they are an instance admin (every workspace, every scope)' })
  instanceAdmin?: boolean;
  @ApiProperty({
    required: false,
    nullable: true,
    enum: ROLES,
    description: 'a person: their role in the chosen project; null without one',
  })
  role?: Role | null;
  @ApiProperty({
    required: false,
    type: [ConsoleMembershipDto],
    description: 'a person: their roles, direct and through their groups (docs/security.md, "Roles")',
  })
  memberships?: ConsoleMembershipDto[];
  @ApiProperty({
    required: false,
    type: [ConsoleProjectChoiceDto],
    description:
      'a person: the projects they may choose (X-Parley-Project), with their role in each; an instance admin lists them with the admin routes',
  })
  projects?: ConsoleProjectChoiceDto[];
}

export class ConsoleSessionEndedDto {
  @ApiProperty({ enum: ['console.session.ended'] }) object: 'console.session.ended';
  @ApiProperty({ description: 'false when the request carried no live session' }) ended: boolean;
}

export class SignInOptionsDto {
  @ApiProperty({ enum: ['console.sign_in_options'] }) object: 'console.sign_in_options';
  @ApiProperty({ description: 'single sign-on with OpenID Connect is configured: GET /v2/console/oidc/login starts it' }) oidc: boolean;
  @ApiProperty({ description: 'a key may be exchanged for a session (PARLEY_KEY_SIGN_IN)' }) keys: boolean;
  @ApiProperty({ required: false, example: 'Okta', description: "the identity provider's name to show (OIDC_PROVIDER_NAME)" })
  providerName?: string;
}
