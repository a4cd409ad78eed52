import { ApiProperty } from '@nestjs/swagger';
import { z } from 'zod';

import { managementBodyDto } from '../../common/validation';
import { GRADER_TYPES, graderConfigSchema } from './grader.schema';

export const putGraderSchema = z.strictObject({ threshold: z.number().min(0).max(1).optional(), config: graderConfigSchema });
export class PutGraderBodyDto extends managementBodyDto(putGraderSchema) {}

export class GraderDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['grader'] }) object: 'grader';
  @ApiProperty({ example: 'mentions-city' }) name: string;
  @ApiProperty({ enum: GRADER_TYPES }) type: string;
  @ApiProperty({ description: 'the score in [0, 1] that passes' }) threshold: number;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the check, with `type`' }) config: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class GraderListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [GraderDto] }) data: GraderDto[];
}

export class GraderDeletedDto {
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['grader'] }) object: 'grader';
  @ApiProperty({ enum: [true] }) deleted: true;
}
