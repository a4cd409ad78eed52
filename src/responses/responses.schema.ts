import { z } from 'zod';

import { openaiMetadataSchema } from '../conversations/conversation-inputs';
import { REASONING_EFFORTS } from '../providers';

/**
 * The body of POST /v1/responses that Parley honours (the SDK's ResponseCreateParams, a subset):
 * unknown fields are refused with a 400 naming them, never silently dropped. `input` items are
 * validated one by one by the conversation item schemas (parseInputItem).
 */
const functionTool = z.strictObject({
  type: z.literal('function'),
  name: z.string().min(1).max(64),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.strictObject({ type: z.literal('function'), name: z.string().min(1) }),
]);

const textFormat = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    name: z.string().min(1).max(64),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);

/**
 * `include` values of the specification (and the `openai` SDK's ResponseIncludable): all accepted;
 * `reasoning.encrypted_content` adds the reasoning's signature, the others have nothing to add in
 * Parley (no log probabilities, built-in tools or stored files). Another value is a 400.
 */
export const INCLUDABLE = [
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
] as const;

export const responsesBodySchema = z.strictObject({
  model: z.string().min(1).optional(),
  prompt: z
    .strictObject({
      id: z.string().min(1),
      version: z
        .string()
        .regex(/^[1-9][0-9]{0,8}$/, 'version must be a version number')
        .nullable()
        .optional(),
      variables: z
        .record(z.string(), z.union([z.string(), z.strictObject({ type: z.literal('input_text'), text: z.string() })]))
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
  input: z.union([z.string(), z.array(z.unknown())]).optional(),
  instructions: z.string().nullable().optional(),
  conversation: z
    .union([z.string().min(1), z.strictObject({ id: z.string().min(1) })])
    .nullable()
    .optional(),
  previous_response_id: z.string().min(1).nullable().optional(),
  store: z.boolean().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  tools: z.array(functionTool).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  max_output_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  metadata: openaiMetadataSchema.nullable().optional(),
  text: z.strictObject({ format: textFormat.optional() }).optional(),
  truncation: z.enum(['auto', 'disabled']).nullable().optional(),
  user: z.string().optional(),
  include: z
    .array(z.enum(INCLUDABLE))
    .max(INCLUDABLE.length * 2)
    .nullable()
    .optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  /** Parley returns no log probabilities: 0 (the default) is the only value it can honour. */
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  max_tool_calls: z.number().int().min(1).nullable().optional(),
  service_tier: z.enum(['auto', 'default', 'flex', 'priority']).nullable().optional(),
  safety_identifier: z.string().max(64).nullable().optional(),
  prompt_cache_key: z.string().max(64).nullable().optional(),
  /** `true` runs the response in the background (docs/openai-conversations.md); false is the default. */
  background: z.boolean().nullable().optional(),
  reasoning: z
    .strictObject({
      effort: z.enum(REASONING_EFFORTS).nullable().optional(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullable().optional(),
    })
    .nullable()
    .optional(),
  stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).nullable().optional(),
});
export type ResponsesBody = z.output<typeof responsesBodySchema>;

/** Response ids are `resp_` and the stored row's UUID as 32 hex digits (in common: feedback names responses too). */
export { responseIdOf, uuidOfResponseId } from '../common/ids';
