import { z } from 'zod';

import { REASONING_EFFORTS } from '../providers';

/**
 * `POST /v1/chat/completions` request body: OpenAI's fields that Parley passes on or translates
 * (docs/openai-compatibility.md), plus Parley's extra fields `variables` and `thread_id`. Any
 * other field is refused (400 naming it), never silently dropped.
 */

const text = z.strictObject({ type: z.literal('text'), text: z.string() });
const imageUrl = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const inputAudio = z.strictObject({
  type: z.literal('input_audio'),
  input_audio: z.strictObject({ data: z.string(), format: z.enum(['wav', 'mp3']) }),
});
const file = z.strictObject({
  type: z.literal('file'),
  file: z.strictObject({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});
const refusal = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });

const textContent = z.union([z.string(), z.array(text)]);
const toolCall = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});
const functionCall = z.strictObject({ name: z.string(), arguments: z.string() });

export const openaiMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('developer'), content: textContent, name: z.string().optional() }),
  z.strictObject({ role: z.literal('system'), content: textContent, name: z.string().optional() }),
  z.strictObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [text, imageUrl, inputAudio, file]))]),
    name: z.string().optional(),
  }),
  z
    .strictObject({
      role: z.literal('assistant'),
      content: z
        .union([z.string(), z.array(z.discriminatedUnion('type', [text, refusal]))])
        .nullable()
        .optional(),
      name: z.string().optional(),
      refusal: z.string().nullable().optional(),
      tool_calls: z.array(toolCall).optional(),
      function_call: functionCall.nullable().optional(),
      audio: z.strictObject({ id: z.string() }).nullable().optional(),
      // Read-only fields of a message the SDK returned (its helpers add `parsed`), sent back as history: dropped.
      parsed: z.unknown().optional(),
      annotations: z.array(z.unknown()).optional(),
    })
    .transform(({ parsed: _parsed, annotations: _annotations, ...message }) => message),
  z.strictObject({ role: z.literal('tool'), content: textContent, tool_call_id: z.string() }),
  z.strictObject({ role: z.literal('function'), content: z.string().nullable(), name: z.string() }),
]);

const tool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a function name is 1 to 64 letters, digits, "_" or "-"'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string() }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.strictObject({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a schema name is 1 to 64 letters, digits, "_" or "-"'),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

const nullish = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const chatCompletionsBodySchema = z.strictObject({
  model: z.string().min(1).max(400),
  /** May be empty for a deployment whose template holds the whole prompt. */
  messages: z.array(openaiMessageSchema),
  tools: nullish(z.array(tool).max(128)),
  tool_choice: nullish(toolChoice),
  parallel_tool_calls: nullish(z.boolean()),
  response_format: nullish(responseFormat),
  max_tokens: nullish(z.number().int().min(1)),
  max_completion_tokens: nullish(z.number().int().min(1)),
  temperature: nullish(z.number().min(0).max(2)),
  top_p: nullish(z.number().min(0).max(1)),
  presence_penalty: nullish(z.number().min(-2).max(2)),
  frequency_penalty: nullish(z.number().min(-2).max(2)),
  seed: nullish(z.number().int()),
  reasoning_effort: nullish(z.enum(REASONING_EFFORTS)),
  stop: nullish(z.union([z.string(), z.array(z.string()).max(4)])),
  n: nullish(z.number().int().min(1).max(128)),
  user: nullish(z.string().max(256)),
  metadata: nullish(z.record(z.string().max(64), z.string().max(512))),
  stream: nullish(z.boolean()),
  stream_options: nullish(z.strictObject({ include_usage: z.boolean().optional() })),
  /** Parley: template variables of a deployed prompt or assistant. */
  variables: nullish(z.record(z.string(), z.string())),
  /** Parley: the thread an assistant continues (a new thread per call without it). */
  thread_id: nullish(z.string().max(64)),
});

export type ChatCompletionsBody = z.output<typeof chatCompletionsBodySchema>;
