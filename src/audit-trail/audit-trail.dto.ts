import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { PageQuery } from '../common/pagination';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * At most 320 characters (the column's length), one `@` with something on each side, no spaces or
 * control characters: the stored address is matched exactly (case aside). One rule, one message.
 */
export const EMAIL = /^(?=[^]{3,320}$)[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;
export const EMAIL_MESSAGE = (field: string) => `${field} must be an e-mail address of at most 320 characters`;
/** `<resource>.<verb>`. */
export const ACTION = /^[a-z_]{1,32}\.[a-z_]{1,32}$/;

const RESOURCE_TYPES = [
  'prompt',
  'version',
  'deployment',
  'environment',
  'provider',
  'api_key',
  'limits',
  'dataset',
  'grader',
  'eval_run',
  'settings',
  'deployment_request',
];

/** GET /v2/audit: newest first, filters combine with AND, `after` is the last id of the previous page. */
export class AuditQuery extends PageQuery {
  @ApiProperty({ required: false, example: 'provider.updated', description: '`<resource>.<verb>`' })
  @IsOptional()
  @Matches(ACTION, { message: 'action must look like "provider.updated"' })
  action?: string;

  @ApiProperty({ required: false, enum: RESOURCE_TYPES })
  @IsOptional()
  @IsIn(RESOURCE_TYPES)
  resourceType?: string;

  @ApiProperty({ required: false, description: 'a slug, a name, `slug@version`, `slug@environment` or a key id' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  resourceId?: string;

  @ApiProperty({ required: false, format: 'uuid', description: 'the key that made the change' })
  @IsOptional()
  @Matches(UUID, { message: 'actorKeyId must be a UUID' })
  actorKeyId?: string;

  @ApiProperty({ required: false, format: 'uuid', description: 'the person who made the change (their user id)' })
  @IsOptional()
  @Matches(UUID, { message: 'actorUserId must be a UUID' })
  actorUserId?: string;

  @ApiProperty({
    required: false,
    example: 'ada@example.com',
    description: 'the person who made the change: their e-mail, exact, case-insensitive',
  })
  @IsOptional()
  @Matches(EMAIL, { message: EMAIL_MESSAGE('actorEmail') })
  actorEmail?: string;

  @ApiProperty({ required: false, description: 'the X-Request-Id of the request that made the change' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  requestId?: string;
}

export class AuditActorDto {
  @ApiProperty({
    enum: ['project', 'admin', 'user', 'operator', 'system'],
    description:
      "`project`/`admin`: a key; `user`: a person signed in to the console (`userId`, `email`); `operator`: the CLI on the database; `system`: the server's own change (a tripped guard)",
  })
  kind: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: "the key's id; null for a person, the CLI and the system" })
  keyId: string | null;
  @ApiProperty({ nullable: true, type: String }) keyName: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'the person (kind `user`); null otherwise' })
  userId: string | null;
  @ApiProperty({ nullable: true, type: String, description: "the person's e-mail when they made the change; null otherwise" })
  email: string | null;
}

export class AuditEventDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['audit_event'] }) object: 'audit_event';
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: AuditActorDto }) actor: AuditActorDto;
  @ApiProperty({ example: 'provider.updated' }) action: string;
  @ApiProperty({ enum: RESOURCE_TYPES }) resourceType: string;
  @ApiProperty() resourceId: string;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'the resource before the change (secrets never included)',
  })
  before: Record<string, unknown> | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'the resource after the change (secrets never included)',
  })
  after: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String }) requestId: string | null;
}

export class AuditEventListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [AuditEventDto] }) data: AuditEventDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
}
