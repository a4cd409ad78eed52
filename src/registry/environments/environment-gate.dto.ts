import { ApiProperty } from '@nestjs/swagger';
import { z } from 'zod';

import { expects } from '../../common/chat';
import { managementBodyDto } from '../../common/validation';
import { SLUG_PATTERN } from '../../common/validation/slug';

export const putGateSchema = z.strictObject({
  dataset: z.string().regex(SLUG_PATTERN, expects('a dataset name')),
  minScores: z
    .record(z.string().regex(SLUG_PATTERN, expects('a grader name')), z.number().min(0).max(1))
    .refine((scores) => Object.keys(scores).length >= 1 && Object.keys(scores).length <= 20, { message: 'Expected 1 to 20 graders' }),
});
export type PutGateBody = z.output<typeof putGateSchema>;
export class PutGateBodyDto extends managementBodyDto(putGateSchema) {}

export class EnvironmentGateDto {
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: 'support-questions', description: 'the dataset a version must have passed a run on' }) dataset: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { 'mentions-city': 0.9 },
    description: 'grader → minimum mean score',
  })
  minScores: Record<string, number>;
}

export class EnvironmentGateDeletedDto {
  @ApiProperty() environment: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}
