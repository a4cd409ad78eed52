import { ApiProperty } from '@nestjs/swagger';

import { IsSlug } from '../../common/validation';

export class CreateEnvironmentDto {
  @IsSlug('qa')
  slug: string;
}

export class EnvironmentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'production' }) slug: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class EnvironmentListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [EnvironmentDto] }) data: EnvironmentDto[];
}
