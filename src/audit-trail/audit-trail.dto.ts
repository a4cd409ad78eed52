import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { PageQuery } from '../common/pagination';

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
];

/** GET /v2/audit: newest first, filters combine with AND, `after` is the last id of the previous page. */
export class AuditQuery extends PageQuery {
  @ApiProperty({ required: false, example: 'provider.updated', description: '`<resource>.<verb>`' })
  @IsOptional()
  @Matches(/^[a-z_]{1,32}\.[a-z_]{1,32}$/, { message: 'action must look like "provider.updated"' })
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
  @Matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, { message: 'actorKeyId must be a UUID' })
  actorKeyId?: string;

  @ApiProperty({ required: false, description: 'the X-Request-Id of the request that made the change' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  requestId?: string;
}

export class AuditActorDto {
  @ApiProperty({
    enum: ['project', 'admin', 'operator', 'system'],
    description: "`operator`: the CLI on the database; `system`: the server's own change (a tripped guard)",
  })
  kind: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) keyId: string | null;
  @ApiProperty({ nullable: true, type: String }) keyName: string | null;
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
