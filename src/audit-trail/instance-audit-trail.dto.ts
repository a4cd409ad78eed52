import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, Matches } from 'class-validator';

import { PageQuery } from '../common/pagination';
import { SLUG_PATTERN } from '../common/validation';
import { ACTION, EMAIL, EMAIL_MESSAGE, UUID } from './audit-trail.dto';

export const INSTANCE_RESOURCE_TYPES = [
  'workspace',
  'project',
  'admin_key',
  'member',
  'group_role',
  'user',
  'sign_in',
  'scim_token',
  'scim_user',
  'scim_group',
];

/** GET /v2/admin/audit: newest first, filters combine with AND, `after` is the last id of the previous page. */
export class InstanceAuditQuery extends PageQuery {
  @ApiProperty({
    required: false,
    example: 'acme',
    description:
      "a workspace's slug: its events only. A workspace's admin (key or person) sees its own workspace's whatever is sent; another workspace is not found",
  })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'workspace must be a workspace slug' })
  workspace?: string;

  @ApiProperty({ required: false, example: 'workspace.created', description: '`<resource>.<verb>`' })
  @IsOptional()
  @Matches(ACTION, { message: 'action must look like "workspace.created"' })
  action?: string;

  @ApiProperty({ required: false, enum: INSTANCE_RESOURCE_TYPES })
  @IsOptional()
  @IsIn(INSTANCE_RESOURCE_TYPES)
  resourceType?: string;

  @ApiProperty({ required: false, format: 'uuid', description: 'the person who acted (their user id)' })
  @IsOptional()
  @Matches(UUID, { message: 'actorUserId must be a UUID' })
  actorUserId?: string;

  @ApiProperty({ required: false, example: 'ada@example.com', description: 'the person who acted: their e-mail, exact, case-insensitive' })
  @IsOptional()
  @Matches(EMAIL, { message: EMAIL_MESSAGE('actorEmail') })
  actorEmail?: string;

  @ApiProperty({ required: false, format: 'date-time', description: 'events at or after this time' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;

  @ApiProperty({ required: false, format: 'date-time', description: 'events before this time' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date-time' })
  until?: string;
}

export class InstanceAuditActorDto {
  @ApiProperty({
    enum: ['admin', 'project', 'user', 'scim', 'anonymous', 'operator', 'system'],
    description:
      "`admin`: an admin key; `user`: a person (`userId`, `email`); `scim`: a workspace's directory (its SCIM token); `anonymous`: a failed sign-in; `operator`: the CLI on the database; `system`: the server itself",
  })
  kind: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: "the key's (or SCIM token's) id" }) keyId: string | null;
  @ApiProperty({ nullable: true, type: String }) keyName: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'the person (kind `user`); null otherwise' })
  userId: string | null;
  @ApiProperty({ nullable: true, type: String, description: "the person's e-mail when they acted (or the one a failed sign-in gave)" })
  email: string | null;
}

export class InstanceAuditEventDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['instance_audit_event'] }) object: 'instance_audit_event';
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ nullable: true, type: String, description: "the workspace's slug; null for the instance itself (its admin keys)" })
  workspace: string | null;
  @ApiProperty({ type: InstanceAuditActorDto }) actor: InstanceAuditActorDto;
  @ApiProperty({ example: 'workspace.created' }) action: string;
  @ApiProperty({ enum: INSTANCE_RESOURCE_TYPES }) resourceType: string;
  @ApiProperty({ description: 'a slug, `<workspace>/<project>`, a key id, an e-mail' }) resourceId: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: 'before the change (secrets never included)' })
  before: Record<string, unknown> | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: 'after the change (secrets never included)' })
  after: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String }) requestId: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'the address the request came from; null for the CLI' })
  clientAddress: string | null;
}

export class InstanceAuditEventListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [InstanceAuditEventDto] }) data: InstanceAuditEventDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
}
