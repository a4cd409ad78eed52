import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { z } from 'zod';

import { expects } from '../common/chat';
import { PageQuery } from '../common/pagination';
import { managementBodyDto, Optional, SLUG_PATTERN, Text } from '../common/validation';

/** Numbers beyond this are refused: feedback is a rating or a score, and the rollup's sums stay exact and small. */
export const MAX_ABS_VALUE = 1_000_000_000;
/** No control characters: a category is a label that is shown and used as a JSON key. */
const CATEGORY_PATTERN = /^[^\u0000-\u001f\u007f]{1,64}$/;

const CATEGORY_PROBLEM = 'a category: 1-64 characters, no control characters';
const NUMBER_RANGE = 'a number from -1000000000 to 1000000000';

/** `POST /v2/feedback` (docs/experiments.md, "Feedback"): one target, a name, a value, an optional comment. */
export const feedbackBodySchema = z
  .strictObject({
    logId: z.uuid(expects('a request log id')).optional(),
    threadId: z.uuid(expects('a thread id')).optional(),
    responseId: z
      .string(expects('a response id'))
      .regex(/^resp_[0-9a-f]{32}$/, expects('a response id (resp_ and 32 hex digits)'))
      .optional(),
    name: z
      .string(expects('a feedback name'))
      .regex(SLUG_PATTERN, expects('a feedback name: 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit')),
    value: z.union(
      [
        z.number().min(-MAX_ABS_VALUE, expects(NUMBER_RANGE)).max(MAX_ABS_VALUE, expects(NUMBER_RANGE)),
        z.boolean(),
        z.string().regex(CATEGORY_PATTERN, expects(CATEGORY_PROBLEM)),
      ],
      { error: (issue) => (issue.input === undefined ? 'Required' : `Expected a number, true or false, or ${CATEGORY_PROBLEM}`) },
    ),
    comment: z.string(expects('a comment')).max(2000, expects('a comment of at most 2000 characters')).nullable().optional(),
  })
  .refine((body) => [body.logId, body.threadId, body.responseId].filter((id) => id !== undefined).length === 1, {
    message: 'Expected exactly one of logId, threadId or responseId',
  });
export type FeedbackBody = z.output<typeof feedbackBodySchema>;
export class FeedbackBodyDto extends managementBodyDto(feedbackBodySchema) {}

export type FeedbackValue = number | boolean | string;

export class FeedbackTargetDto {
  @ApiProperty({ enum: ['log', 'thread', 'response'] }) type: 'log' | 'thread' | 'response';
  @ApiProperty({ description: 'the id sent: a request log or thread UUID, or resp_…' }) id: string;
}

export class FeedbackDto {
  @ApiProperty({ format: 'uuid', description: 'the same when the feedback is sent again (it replaces the value)' }) id: string;
  @ApiProperty({ enum: ['feedback'] }) object: 'feedback';
  @ApiProperty({ type: FeedbackTargetDto }) target: FeedbackTargetDto;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    description: "the request log the target names (a thread's: its latest logged turn's)",
  })
  logId: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: "the thread (a log's or a response's conversation)" })
  threadId: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'resp_0198c0de…' }) responseId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the prompt or assistant slug of that log' }) prompt: string | null;
  @ApiProperty({ type: String, nullable: true }) environment: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'the version that served the call; null for a direct provider call' })
  version: number | null;
  @ApiProperty({ example: 'helpful' }) name: string;
  @ApiProperty({
    oneOf: [{ type: 'number' }, { type: 'boolean' }, { type: 'string' }],
    description: 'as sent: a number, a boolean or a category',
  })
  value: FeedbackValue;
  @ApiProperty({ type: String, nullable: true }) comment: string | null;
  @ApiProperty({
    description:
      "the API key's id, `console` for the console's session, or `grader` for a live grader's score (one feedback per target, name and source)",
  })
  source: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class FeedbackListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [FeedbackDto], description: 'newest first' }) data: FeedbackDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

export class FeedbackQuery extends PageQuery {
  @Optional()
  @Text({ max: 64, description: 'feedback naming this request log (on it, or on its thread or response)' })
  logId?: string;

  @Optional()
  @Text({ max: 64, description: 'feedback on this thread or on its calls' })
  threadId?: string;

  @Optional()
  @Text({ max: 64, description: 'feedback on this stored response (resp_…)' })
  responseId?: string;

  @Optional()
  @Text({ max: 64, example: 'helpful' })
  name?: string;

  @Optional()
  @Text({ max: 64, description: 'prompt or assistant slug' })
  prompt?: string;

  @Optional()
  @Text({ max: 64 })
  environment?: string;

  @Optional()
  @ApiProperty({ type: Number, description: "the version that served the call; needs `prompt` (a version is a prompt's)" })
  @Matches(/^[1-9][0-9]{0,8}$/, { message: 'version must be a version number' })
  version?: string;
}

export class FeedbackSummaryQuery {
  @Text({ max: 64, pattern: SLUG_PATTERN, patternMessage: 'prompt must be a prompt slug', description: 'prompt or assistant slug' })
  prompt: string;

  @Text({ max: 64, pattern: SLUG_PATTERN, patternMessage: 'environment must be an environment slug', example: 'production' })
  environment: string;
}

export class IntervalDto {
  @ApiProperty() low: number;
  @ApiProperty() high: number;
  @ApiProperty({ enum: ['wilson', 't'], description: "Wilson's score interval for a share of true, Student's t for a mean" })
  method: 'wilson' | 't';
}

export class FeedbackSummaryRowDto {
  @ApiProperty() version: number;
  @ApiProperty({ example: 'helpful' }) name: string;
  @ApiProperty({
    enum: ['boolean', 'number', 'category'],
    description:
      'boolean: every value scored is true/false (the mean is the share of true); number: numbers (booleans among them as 1/0); category: none scored',
  })
  kind: 'boolean' | 'number' | 'category';
  @ApiProperty({ description: 'every feedback of this name on this version' }) count: number;
  @ApiProperty({ description: 'the values in the mean (numbers and booleans)' }) n: number;
  @ApiProperty({ type: Number, nullable: true }) mean: number | null;
  @ApiProperty({
    type: IntervalDto,
    nullable: true,
    description: 'the 95 % confidence interval of the mean; null with no values, or one number',
  })
  interval: IntervalDto | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'counts per category' })
  categories: Record<string, number>;
}

export class FeedbackSummaryDto {
  @ApiProperty({ enum: ['feedback.summary'] }) object: 'feedback.summary';
  @ApiProperty() prompt: string;
  @ApiProperty() environment: string;
  @ApiProperty({ type: [FeedbackSummaryRowDto], description: 'newest version first, then by name' }) data: FeedbackSummaryRowDto[];
}
