import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

import { IsSlug } from '../../common/validation';

export class CreateEnvironmentDto {
  @IsSlug('qa')
  slug: string;
}

/** An environment's protection (docs/security.md, "Approvals"): PUT /v2/environments/{slug}/protection sets both. */
export class EnvironmentProtectionDto {
  @ApiProperty({ example: true, description: "deploys and rollbacks here wait for another person's approval (a deployment request)" })
  @IsBoolean()
  requireApproval: boolean;

  @ApiProperty({ example: true, description: 'API keys may not deploy here, even with the deploy scope (a person deploys, or asks to)' })
  @IsBoolean()
  barKeys: boolean;
}

export class EnvironmentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'production' }) slug: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({
    type: EnvironmentProtectionDto,
    nullable: true,
    description: 'null: unprotected (anyone with the deploy scope deploys at once)',
  })
  protection: EnvironmentProtectionDto | null;
}

export class EnvironmentListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [EnvironmentDto] }) data: EnvironmentDto[];
}

/** DELETE /v2/environments/{slug}: what was deleted. */
export class EnvironmentDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'qa' }) slug: string;
  @ApiProperty({ enum: ['environment'] }) object: 'environment';
  @ApiProperty({ enum: [true] }) deleted: true;
}
