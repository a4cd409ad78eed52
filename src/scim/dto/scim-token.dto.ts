import { ApiProperty } from '@nestjs/swagger';

import { Optional, Text } from '../../common/validation';

export class CreateScimTokenDto {
  @Optional()
  @Text({ min: 1, max: 200, example: 'okta', description: 'a label (the identity provider that uses it); defaults to "scim"' })
  name?: string;
}

export class ScimTokenDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['scim_token'] }) object: 'scim_token';
  @ApiProperty({ example: 'okta' }) name: string;
  @ApiProperty({ example: 'pscim_Xq3v', description: 'the first characters of the token, to tell tokens apart' }) prefix: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'last SCIM request with it (to the minute)' })
  lastUsedAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt: string | null;
}

export class CreatedScimTokenDto extends ScimTokenDto {
  @ApiProperty({
    description: "the bearer token for the identity provider's SCIM connection; shown only in this response, stored only as a SHA-256 hash",
  })
  token: string;
  @ApiProperty({ example: 'acme' }) workspace: string;
}

export class ScimTokenListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ScimTokenDto] }) data: ScimTokenDto[];
}

export class ScimTokenRevokedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['scim_token.revoked'] }) object: 'scim_token.revoked';
  @ApiProperty({ enum: [true] }) revoked: true;
}
