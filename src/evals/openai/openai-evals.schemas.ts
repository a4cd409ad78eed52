import { z } from 'zod';

import { openaiMetadataSchema, parseOpenAI } from '../../conversations/conversation-inputs';

/**
 * OpenAI's Evals API request bodies and queries (the `openai` SDK's EvalCreateParams,
 * EvalUpdateParams, RunCreateParams and list params), in their shapes. What Parley cannot do is
 * accepted by shape here and refused by the service with a 400 naming the field and the reason
 * (docs/evals.md, "OpenAI's Evals API"); unknown fields are refused, never silently dropped.
 */

const metadata = openaiMetadataSchema.nullable().optional();

const inputText = z.strictObject({ type: z.literal('input_text'), text: z.string() });
const outputText = z.strictObject({ type: z.literal('output_text'), text: z.string() });
const inputImage = z.strictObject({ type: z.literal('input_image'), image_url: z.string(), detail: z.string().optional() });
const inputAudio = z.strictObject({
  type: z.literal('input_audio'),
  input_audio: z.strictObject({ data: z.string(), format: z.string() }),
});
const contentPart = z.discriminatedUnion('type', [inputText, outputText, inputImage, inputAudio]);

/** A message of a template (a grader's `input`, a run's `input_messages`): its text may hold `{{item.x}}` and `{{sample.x}}`. */
export const templateMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), contentPart, z.array(z.union([z.string(), contentPart])).max(50)]),
  type: z.literal('message').optional(),
});
export type TemplateMessage = z.output<typeof templateMessageSchema>;

const criterionName = z.string().min(1).max(256);
const templateText = z.string().max(100_000);
const model = z.string().min(1).max(400);
const label = z.string().min(1).max(200);

export const TEXT_SIMILARITY_METRICS = [
  'cosine',
  'fuzzy_match',
  'bleu',
  'gleu',
  'meteor',
  'rouge_1',
  'rouge_2',
  'rouge_3',
  'rouge_4',
  'rouge_5',
  'rouge_l',
] as const;

const stringCheck = z.strictObject({
  type: z.literal('string_check'),
  name: criterionName,
  input: templateText,
  reference: templateText,
  operation: z.enum(['eq', 'ne', 'like', 'ilike']),
});
const textSimilarity = z.strictObject({
  type: z.literal('text_similarity'),
  name: criterionName,
  input: templateText,
  reference: templateText,
  evaluation_metric: z.enum(TEXT_SIMILARITY_METRICS),
  pass_threshold: z.number(),
});
const labelModel = z.strictObject({
  type: z.literal('label_model'),
  name: criterionName,
  model,
  input: z.array(templateMessageSchema).min(1).max(50),
  labels: z.array(label).min(1).max(50),
  passing_labels: z.array(label).min(1).max(50),
});
export const judgeSamplingSchema = z.strictObject({
  max_completions_tokens: z.number().int().min(1).nullable().optional(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
});
const scoreModel = z.strictObject({
  type: z.literal('score_model'),
  name: criterionName,
  model,
  input: z.array(templateMessageSchema).min(1).max(50),
  range: z.array(z.number()).length(2).optional(),
  pass_threshold: z.number().optional(),
  sampling_params: judgeSamplingSchema.optional(),
});
/** Accepted by shape so that the service can say why it is refused. */
const python = z.looseObject({ type: z.literal('python'), name: criterionName });

export const testingCriterionSchema = z.discriminatedUnion('type', [stringCheck, textSimilarity, labelModel, scoreModel, python]);
export type TestingCriterionInput = z.output<typeof testingCriterionSchema>;

export const createEvalSchema = z.strictObject({
  name: z.string().max(256).optional(),
  data_source_config: z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('custom'),
      item_schema: z.record(z.string(), z.unknown()),
      include_sample_schema: z.boolean().optional(),
    }),
    z.looseObject({ type: z.literal('logs') }),
    z.looseObject({ type: z.literal('stored_completions') }),
  ]),
  testing_criteria: z.array(testingCriterionSchema).min(1).max(20),
  metadata,
});
export type CreateEvalBody = z.output<typeof createEvalSchema>;

export const updateEvalSchema = z.strictObject({ name: z.string().min(1).max(256).optional(), metadata });
export type UpdateEvalBody = z.output<typeof updateEvalSchema>;

/** One line of a `file_content` source: the `item` namespace, and a `sample` already made (jsonl runs). */
const row = z.strictObject({ item: z.record(z.string(), z.unknown()), sample: z.record(z.string(), z.unknown()).optional() });
export type SourceRow = z.output<typeof row>;

/** Rows per run: they become one version of the run's dataset, which one call adds. */
export const MAX_ROWS = 1000;
const fileContent = z.strictObject({ type: z.literal('file_content'), content: z.array(row).min(1).max(MAX_ROWS) });
const fileId = z.looseObject({ type: z.literal('file_id') });

export const runSamplingSchema = z.strictObject({
  max_completion_tokens: z.number().int().min(1).optional(),
  reasoning_effort: z.string().nullable().optional(),
  response_format: z.record(z.string(), z.unknown()).optional(),
  seed: z.number().int().optional(),
  temperature: z.number().min(0).max(2).optional(),
  tools: z.array(z.unknown()).optional(),
  top_p: z.number().min(0).max(1).optional(),
});

const jsonlSource = z.strictObject({ type: z.literal('jsonl'), source: z.discriminatedUnion('type', [fileContent, fileId]) });
const completionsSource = z.strictObject({
  type: z.literal('completions'),
  source: z.discriminatedUnion('type', [fileContent, fileId, z.looseObject({ type: z.literal('stored_completions') })]),
  input_messages: z
    .discriminatedUnion('type', [
      z.strictObject({ type: z.literal('template'), template: z.array(templateMessageSchema).min(1).max(50) }),
      z.looseObject({ type: z.literal('item_reference') }),
    ])
    .optional(),
  model: model.optional(),
  sampling_params: runSamplingSchema.optional(),
});

export const createRunSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  metadata,
  data_source: z.discriminatedUnion('type', [jsonlSource, completionsSource, z.looseObject({ type: z.literal('responses') })]),
});
export type CreateRunBody = z.output<typeof createRunSchema>;
export type JsonlDataSource = z.output<typeof jsonlSource>;
export type CompletionsDataSource = z.output<typeof completionsSource>;

const limit = z
  .string()
  .regex(/^(100|[1-9][0-9]?)$/, 'limit must be an integer from 1 to 100')
  .transform(Number)
  .default(20);
const after = z.string().min(1).max(200).optional();
const order = z.enum(['asc', 'desc']).default('asc');

export const evalListQuerySchema = z.object({ after, limit, order, order_by: z.enum(['created_at', 'updated_at']).default('created_at') });
export const runListQuerySchema = z.object({
  after,
  limit,
  order,
  status: z.enum(['queued', 'in_progress', 'completed', 'canceled', 'failed']).optional(),
});
export const outputItemListQuerySchema = z.object({ after, limit, order, status: z.enum(['pass', 'fail']).optional() });

export type EvalListQuery = z.output<typeof evalListQuerySchema>;
export type RunListQuery = z.output<typeof runListQuerySchema>;
export type OutputItemListQuery = z.output<typeof outputItemListQuerySchema>;

/** A query string as OpenAI's 400 names its bad parameter (unknown parameters are ignored, as on the other lists). */
export const parseQuery = <S extends z.ZodType>(schema: S, raw: Record<string, unknown>): z.output<S> => parseOpenAI(schema, raw);
