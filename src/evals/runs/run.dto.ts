import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

import { PageQuery } from '../../common/pagination';
import { managementBodyDto, Optional, Text } from '../../common/validation';
import { createRunSchema } from './run.schema';

export class CreateRunBodyDto extends managementBodyDto(createRunSchema) {}

export class RunsQuery extends PageQuery {
  @Optional()
  @Text({ max: 64, description: "only this prompt's runs (its slug)" })
  prompt?: string;

  @Optional()
  @Text({ max: 64, description: 'only the runs over this dataset (its name)' })
  dataset?: string;
}

export class RunItemsQuery extends PageQuery {
  @Optional()
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'only the items that passed every grader (true) or did not (false)' })
  @IsIn(['true', 'false'])
  passed?: string;
}

export class CompareQuery extends PageQuery {
  @Optional()
  @ApiPropertyOptional({ enum: ['regressed', 'improved', 'unchanged'], default: 'regressed' })
  @IsIn(['regressed', 'improved', 'unchanged'])
  outcome?: 'regressed' | 'improved' | 'unchanged';
}

export class RunGraderResultDto {
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['equals', 'contains', 'regex', 'json_schema', 'json_path', 'tool_call', 'latency', 'cost', 'model'] }) type: string;
  @ApiProperty() threshold: number;
  @ApiProperty({ description: 'items graded so far' }) graded: number;
  @ApiProperty() passed: number;
  @ApiProperty({ type: Number, nullable: true, description: 'mean score over the graded items' }) meanScore: number | null;
  @ApiProperty({ type: Number, nullable: true }) passRate: number | null;
}

export class RunProgressDto {
  @ApiProperty({ description: 'items in the dataset version' }) total: number;
  @ApiProperty({ description: 'items stored (graded, or failed to call)' }) completed: number;
  @ApiProperty({ description: 'items whose call failed' }) errored: number;
  @ApiProperty({ description: 'items every grader passed' }) passed: number;
}

export class RunUsageDto {
  @ApiProperty() promptTokens: number;
  @ApiProperty() completionTokens: number;
  @ApiProperty({ description: 'of the calls of the items (judges are logged and costed on their own)' }) costUsd: number;
  @ApiProperty({ type: Number, nullable: true }) meanLatencyMs: number | null;
}

export class RunDatasetDto {
  @ApiProperty({ example: 'support-questions' }) name: string;
  @ApiProperty({ description: 'the dataset version the run used' }) version: number;
}

export class RunDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['eval.run'] }) object: 'eval.run';
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['queued', 'running', 'completed', 'cancelled', 'failed'] }) status: string;
  @ApiProperty({ type: RunDatasetDto }) dataset: RunDatasetDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: '{type: "version", prompt, version} or {type: "draft", prompt, draft}',
  })
  target: Record<string, unknown>;
  @ApiProperty({ type: [RunGraderResultDto] }) graders: RunGraderResultDto[];
  @ApiProperty() concurrency: number;
  @ApiProperty({ type: RunProgressDto }) progress: RunProgressDto;
  @ApiProperty({ type: RunUsageDto }) usage: RunUsageDto;
  @ApiProperty({ description: 'the environment its calls are logged under (usage group_by=environment)' }) logEnvironment: string;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, string | number>;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) startedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finishedAt: string | null;
}

export class RunListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [RunDto] }) data: RunDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

export class GraderScoreDto {
  @ApiProperty() grader: string;
  @ApiProperty() score: number;
  @ApiProperty() passed: boolean;
  @ApiProperty() reason: string;
}

export class RunItemInputDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) variables: Record<string, string>;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) messages: unknown[];
  @ApiProperty({ nullable: true, description: 'text or any JSON; null when none' }) expected: unknown;
}

export class RunItemDto {
  @ApiProperty({ format: 'uuid', description: 'the dataset item' }) itemId: string;
  @ApiProperty({
    type: RunItemInputDto,
    nullable: true,
    description: 'the item as the dataset version the run used holds it; null when the dataset was deleted',
  })
  input: RunItemInputDto | null;
  @ApiProperty({ enum: ['ok', 'error'] }) status: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: '{text, toolCalls, finishReason}' })
  output: Record<string, unknown> | null;
  @ApiProperty({ type: [GraderScoreDto] }) scores: GraderScoreDto[];
  @ApiProperty() passed: boolean;
  @ApiProperty({ description: "the mean of the graders' scores" }) score: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) logId: string | null;
  @ApiProperty({ type: Number, nullable: true }) promptTokens: number | null;
  @ApiProperty({ type: Number, nullable: true }) completionTokens: number | null;
  @ApiProperty({ type: Number, nullable: true }) costUsd: number | null;
  @ApiProperty() latencyMs: number;
}

export class RunItemListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [RunItemDto] }) data: RunItemDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

export class ComparedItemDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'candidate score minus base score' }) delta: number;
  @ApiProperty({ type: RunItemDto }) base: RunItemDto;
  @ApiProperty({ type: RunItemDto }) candidate: RunItemDto;
}

export class CompareGraderDto {
  @ApiProperty() name: string;
  @ApiProperty({ type: Number, nullable: true }) baseMean: number | null;
  @ApiProperty({ type: Number, nullable: true }) candidateMean: number | null;
  @ApiProperty({ type: Number, nullable: true }) basePassRate: number | null;
  @ApiProperty({ type: Number, nullable: true }) candidatePassRate: number | null;
}

export class CompareDto {
  @ApiProperty({ enum: ['eval.comparison'] }) object: 'eval.comparison';
  @ApiProperty({ format: 'uuid' }) base: string;
  @ApiProperty({ format: 'uuid' }) candidate: string;
  @ApiProperty({
    type: 'object',
    properties: {
      improved: { type: 'integer' },
      regressed: { type: 'integer' },
      unchanged: { type: 'integer' },
      onlyInBase: { type: 'integer' },
      onlyInCandidate: { type: 'integer' },
    },
  })
  counts: { improved: number; regressed: number; unchanged: number; onlyInBase: number; onlyInCandidate: number };
  @ApiProperty({ type: [CompareGraderDto], description: 'every grader of either run' }) graders: CompareGraderDto[];
  @ApiProperty({ enum: ['regressed', 'improved', 'unchanged'] }) outcome: string;
  @ApiProperty({ type: [ComparedItemDto], description: 'the items of `outcome`, by item id' }) data: ComparedItemDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}
