import { ApiProperty } from '@nestjs/swagger';
import { Optional, Text } from '../../common/validation';

export class CreateApiKeyDto {
  @Optional()
  @Text({ min: 1, max: 200, example: 'ci-deploy', description: 'a label; defaults to "default"' })
  name?: string;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ci-deploy' }) name: string;
  @ApiProperty({ example: 'pk_Xq3v9aB', description: 'the first characters of the key, to tell keys apart' }) prefix: string;
  @ApiProperty({ format: 'uuid' }) projectId: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'the secret; shown only in this response, stored only as a SHA-256 hash' }) key: string;
  @ApiProperty({ example: 'acme' }) workspace: string;
  @ApiProperty({ example: 'support' }) project: string;
}

export class ApiKeyListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ApiKeyDto] }) data: ApiKeyDto[];
}

export class ApiKeyRevokedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['api_key.revoked'] }) object: 'api_key.revoked';
  @ApiProperty({ enum: [true] }) revoked: true;
}
