import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, Matches } from 'class-validator';

import { PRESET_NAMES, Scope, ScopePreset, SCOPES } from '../../auth/scopes';
import { Optional, SLUG_PATTERN, Text } from '../../common/validation';

/** The scopes of a key (docs/security.md, "Scopes"): a preset and/or a list. */
export class KeyScopesDto {
  @Optional()
  @ApiProperty({
    enum: PRESET_NAMES,
    description: 'a named set of scopes (`app` for a key an application embeds); combined with `scopes` when both are given',
  })
  @IsIn(PRESET_NAMES)
  preset?: ScopePreset;

  @Optional()
  @ApiProperty({ type: [String], enum: SCOPES, description: 'scopes; a key made with neither `preset` nor `scopes` has every scope' })
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(SCOPES.length)
  @IsIn(SCOPES, { each: true })
  scopes?: Scope[];
}

/** Scopes and environments of a project key; shared by create and update. */
export class ApiKeyAccessDto extends KeyScopesDto {
  @Optional({ nullable: true })
  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['production'],
    description: 'the environments the key may invoke (slugs); absent or null: all',
  })
  @IsArray()
  @ArrayUnique()
  @ArrayMinSize(1)
  @ArrayMaxSize(32)
  @Matches(SLUG_PATTERN, { each: true, message: 'each value in $property must be an environment slug' })
  environments?: string[] | null;
}

export class CreateApiKeyDto extends ApiKeyAccessDto {
  @Optional()
  @Text({ min: 1, max: 200, example: 'ci-deploy', description: 'a label; defaults to "default"' })
  name?: string;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ci-deploy' }) name: string;
  @ApiProperty({ example: 'pk_Xq3v9aB', description: 'the first characters of the key, to tell keys apart' }) prefix: string;
  @ApiProperty({ format: 'uuid' }) projectId: string;
  @ApiProperty({ type: [String], enum: SCOPES, nullable: true, description: 'null: every scope' }) scopes: Scope[] | null;
  @ApiProperty({ type: [String], nullable: true, description: 'the environments the key may invoke; null: all' }) environments:
    string[] | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'the secret; shown only in this response, stored only as a SHA-256 hash' }) key: string;
  @ApiProperty({ example: 'acme' }) workspace: string;
  @ApiProperty({ example: 'support' }) project: string;
}

/** A key as its project's list shows it: with its spend, its budgets and its last use (docs/usage.md, "Keys: spend and last use"). */
export class ApiKeyListItemDto extends ApiKeyDto {
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description:
      'the start of the last UTC hour in which a call was made with this key (hour granularity: read from the hourly usage rollups, so no call writes anything more); null: no call of it in the rollups kept (USAGE_RETENTION_DAYS)',
  })
  lastUsedAt: string | null;
  @ApiProperty({ example: '0.0412', description: "USD of this key's calls today (UTC), exact decimal, from the daily usage rollups" })
  spendTodayUsd: string;
  @ApiProperty({
    example: '3.0412',
    description: "USD of this key's calls this calendar month (UTC), exact decimal, from the daily usage rollups",
  })
  spendMonthUsd: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '5',
    description: "the key's budget in USD per UTC day: its own, else the project's default for keys; null: none",
  })
  budgetUsdPerDay: string | null;
  @ApiProperty({ type: String, nullable: true, example: '50', description: 'the same per UTC calendar month' })
  budgetUsdPerMonth: string | null;
}

export class ApiKeyListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ApiKeyListItemDto] }) data: ApiKeyListItemDto[];
}

export class ApiKeyRevokedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['api_key.revoked'] }) object: 'api_key.revoked';
  @ApiProperty({ enum: [true] }) revoked: true;
}

export class CreateWorkspaceAdminKeyDto extends KeyScopesDto {
  @Optional()
  @Text({ min: 1, max: 200, example: 'acme-admin', description: 'a label; defaults to "workspace-admin"' })
  name?: string;
}

export class WorkspaceAdminKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'acme-admin' }) name: string;
  @ApiProperty({ example: 'ak_Xq3v9aB' }) prefix: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ type: [String], enum: SCOPES, nullable: true, description: 'null: every scope' }) scopes: Scope[] | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt: string | null;
}

export class CreatedWorkspaceAdminKeyDto extends WorkspaceAdminKeyDto {
  @ApiProperty({ description: 'the secret; shown only in this response, stored only as a SHA-256 hash' }) key: string;
  @ApiProperty({ example: 'acme' }) workspace: string;
}

export class WorkspaceAdminKeyListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [WorkspaceAdminKeyDto] }) data: WorkspaceAdminKeyDto[];
}
