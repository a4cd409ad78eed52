import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

import { OPENAI_ERROR_SCHEMA } from '../../common/swagger/error-responses';
import { openaiBodyDto } from '../../common/validation/zod-dto';
import { parseOpenAI } from '../../conversations/conversation-inputs';
import { createEvalSchema, createRunSchema, updateEvalSchema } from './openai-evals.schemas';

/** `POST /v1/evals`, `POST /v1/evals/{eval_id}` and `POST /v1/evals/{eval_id}/runs` bodies: OpenAI's, validated by the global pipe. */
export class OpenAIEvalCreateBodyDto extends openaiBodyDto(createEvalSchema, parseOpenAI) {}
export class OpenAIEvalUpdateBodyDto extends openaiBodyDto(updateEvalSchema, parseOpenAI) {}
export class OpenAIEvalRunCreateBodyDto extends openaiBodyDto(createRunSchema, parseOpenAI) {}

const WHY: Record<number, string> = {
  400: 'invalid, or what Parley cannot run (named in error.param)',
  401: 'invalid API key',
  403: "the key lacks the route's scope (a run needs invoke too)",
  404: 'unknown eval, run or output item (code not_found)',
};

/** The route's failures in OpenAI's shape. */
export const ApiOpenAIErrors = (...statuses: number[]) =>
  applyDecorators(
    ...[401, 403, ...statuses].map((status) => ApiResponse({ status, schema: OPENAI_ERROR_SCHEMA, description: WHY[status] })),
  );

const object = (properties: Record<string, SchemaObject>, required = Object.keys(properties)): SchemaObject => ({
  type: 'object',
  required,
  properties,
});
const nullable = (type: string): SchemaObject => ({ type, nullable: true });
const anyObject: SchemaObject = { type: 'object', additionalProperties: true };
const metadata: SchemaObject = { type: 'object', nullable: true, additionalProperties: { type: 'string' } };

export const EVAL_SCHEMA = object({
  object: { type: 'string', enum: ['eval'] },
  id: { type: 'string', example: 'eval_0193b1e27c4d7a2b9c3d0123456789ab' },
  name: { type: 'string' },
  created_at: { type: 'integer', description: 'Unix seconds' },
  metadata,
  data_source_config: object({ type: { type: 'string', enum: ['custom'] }, schema: anyObject }),
  testing_criteria: { type: 'array', items: { ...anyObject, description: 'as given, with its id (`<name>-<uuid>`)' } },
});

export const RUN_SCHEMA = object({
  object: { type: 'string', enum: ['eval.run'] },
  id: { type: 'string', example: 'evalrun_0193b1e27c4d7a2b9c3d0123456789ab' },
  eval_id: { type: 'string' },
  name: { type: 'string' },
  status: { type: 'string', enum: ['queued', 'in_progress', 'completed', 'canceled', 'failed'] },
  model: { ...nullable('string'), description: 'the model of a completions run; null for jsonl' },
  created_at: { type: 'integer' },
  data_source: anyObject,
  metadata,
  result_counts: object({
    total: { type: 'integer' },
    errored: { type: 'integer' },
    failed: { type: 'integer' },
    passed: { type: 'integer' },
  }),
  per_testing_criteria_results: {
    type: 'array',
    items: object({ testing_criteria: { type: 'string' }, passed: { type: 'integer' }, failed: { type: 'integer' } }),
  },
  per_model_usage: { type: 'array', items: anyObject },
  report_url: { type: 'string', description: "the console's page of the experiment run, relative to the server" },
  error: { ...object({ code: { type: 'string' }, message: { type: 'string' } }), nullable: true },
});

export const OUTPUT_ITEM_SCHEMA = object({
  object: { type: 'string', enum: ['eval.run.output_item'] },
  id: { type: 'string', example: 'outputitem_0193b1e27c4d7a2b9c3d0123456789ab' },
  run_id: { type: 'string' },
  eval_id: { type: 'string' },
  created_at: { type: 'integer' },
  status: { type: 'string', enum: ['pass', 'fail', 'error'] },
  datasource_item_id: { type: 'integer', description: "the row's index in the run's data source" },
  datasource_item: anyObject,
  results: {
    type: 'array',
    items: object({
      name: { type: 'string' },
      type: nullable('string'),
      score: { type: 'number' },
      passed: { type: 'boolean' },
      sample: nullable('object'),
      reason: { type: 'string' },
    }),
  },
  sample: { ...anyObject, nullable: true, description: 'input, output, finish_reason, model, usage, error and the sampling settings' },
});

export const listSchema = (item: SchemaObject) =>
  object({
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: item },
    first_id: nullable('string'),
    last_id: nullable('string'),
    has_more: { type: 'boolean' },
  });

export const deletedSchema = (object_: string, idField: string) =>
  object({ object: { type: 'string', enum: [object_] }, deleted: { type: 'boolean' }, [idField]: { type: 'string' } });
