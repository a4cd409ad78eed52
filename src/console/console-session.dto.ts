import { ApiProperty } from '@nestjs/swagger';

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

export class ConsoleSessionDto {
  @ApiProperty({ enum: ['console.session'] }) object: 'console.session';
  @ApiProperty({ enum: ['project', 'admin'], description: 'the kind of key the session stands for' }) kind: 'project' | 'admin';
  @ApiProperty({ nullable: true, type: String, example: 'default', description: "the project key's workspace; null for the admin key" })
  workspace: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'default', description: "the project key's project; null for the admin key" })
  project: string | null;
  @ApiProperty({
    type: [String],
    enum: SCOPES,
    nullable: true,
    description: 'the key\'s scopes (docs/security.md, "Scopes"); null: every scope',
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
}

export class ConsoleSessionEndedDto {
  @ApiProperty({ enum: ['console.session.ended'] }) object: 'console.session.ended';
  @ApiProperty({ description: 'false when the request carried no live session' }) ended: boolean;
}
