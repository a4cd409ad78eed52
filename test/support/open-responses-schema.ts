/**
 * The Open Responses specification's Response object and streaming events (its OpenAPI document,
 * `components.schemas`: ResponseResource, ItemField, Usage, ... and the *StreamingEvent schemas),
 * written here as zod schemas from that document: every field it lists as required, with its
 * type. Extra fields are allowed, as the specification allows them. Tests parse every Response
 * and every event Parley sends with these (`expectResponseResource`, `expectStreamingEvent`), and
 * the answers of POST /v1/responses/compact (`expectCompactResource`).
 */
import { z } from 'zod';

const int = z.number().int();
const nullable = <T extends z.ZodTypeAny>(schema: T) => schema.nullable();

const inputText = z.object({ type: z.literal('input_text'), text: z.string() });
const outputText = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.object({ type: z.string() })),
  logprobs: z
    .array(z.object({ token: z.string(), logprob: z.number(), bytes: z.array(int), top_logprobs: z.array(z.unknown()) }))
    .optional(),
});
const textContent = z.object({ type: z.literal('text'), text: z.string() });
const summaryText = z.object({ type: z.literal('summary_text'), text: z.string() });
const reasoningText = z.object({ type: z.literal('reasoning_text'), text: z.string() });
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
const inputImage = z.object({ type: z.literal('input_image'), image_url: nullable(z.string()), detail: z.enum(['low', 'high', 'auto']) });
const inputFile = z.object({ type: z.literal('input_file'), filename: z.string().optional(), file_url: z.string().optional() });
const inputVideo = z.object({ type: z.literal('input_video'), video_url: z.string() });

/** The content parts of items and of the content/summary part events. */
const contentPart = z.discriminatedUnion('type', [
  inputText,
  outputText,
  textContent,
  summaryText,
  reasoningText,
  refusal,
  inputImage,
  inputFile,
]);
const messageContent = z.discriminatedUnion('type', [
  inputText,
  outputText,
  textContent,
  summaryText,
  reasoningText,
  refusal,
  inputImage,
  inputFile,
  inputVideo,
]);
const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']);

export const itemFieldSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message'),
    id: z.string(),
    status: itemStatus,
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.array(messageContent),
  }),
  z.object({
    type: z.literal('function_call'),
    id: z.string(),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
    status: itemStatus,
  }),
  z.object({
    type: z.literal('function_call_output'),
    id: z.string(),
    call_id: z.string(),
    output: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputText, inputImage, inputFile]))]),
    status: itemStatus,
  }),
  z.object({
    type: z.literal('reasoning'),
    id: z.string(),
    summary: z.array(contentPart),
    content: z.array(contentPart).optional(),
    encrypted_content: z.string().optional(),
  }),
  z.object({ type: z.literal('compaction'), id: z.string(), encrypted_content: z.string(), created_by: z.string().optional() }),
]);

const usage = z.object({
  input_tokens: int,
  output_tokens: int,
  total_tokens: int,
  input_tokens_details: z.object({ cached_tokens: int }),
  output_tokens_details: z.object({ reasoning_tokens: int }),
});

const functionTool = z.object({
  type: z.literal('function'),
  name: z.string(),
  description: nullable(z.string()),
  parameters: nullable(z.record(z.string(), z.unknown())),
  strict: nullable(z.boolean()),
});
const toolChoiceValue = z.enum(['none', 'auto', 'required']);
const functionToolChoice = z.object({ type: z.literal('function'), name: z.string().optional() });
const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string(),
    description: nullable(z.string()),
    schema: z.unknown(),
    strict: z.boolean(),
  }),
]);

export const responseResourceSchema = z.object({
  id: z.string(),
  object: z.literal('response'),
  created_at: int,
  completed_at: nullable(int),
  status: z.string(),
  incomplete_details: nullable(z.object({ reason: z.string() })),
  model: z.string(),
  previous_response_id: nullable(z.string()),
  instructions: nullable(z.string()),
  output: z.array(itemFieldSchema),
  error: nullable(z.object({ code: z.string(), message: z.string() })),
  tools: z.array(functionTool),
  tool_choice: z.union([
    functionToolChoice,
    toolChoiceValue,
    z.object({ type: z.literal('allowed_tools'), tools: z.array(functionToolChoice), mode: toolChoiceValue }),
  ]),
  truncation: z.enum(['auto', 'disabled']),
  parallel_tool_calls: z.boolean(),
  text: z.object({ format: textFormat, verbosity: z.enum(['low', 'medium', 'high']).optional() }),
  top_p: z.number(),
  presence_penalty: z.number(),
  frequency_penalty: z.number(),
  top_logprobs: int,
  temperature: z.number(),
  reasoning: nullable(
    z.object({
      effort: nullable(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])),
      summary: nullable(z.enum(['concise', 'detailed', 'auto'])),
    }),
  ),
  user: nullable(z.string()),
  usage: nullable(usage),
  max_output_tokens: nullable(int),
  max_tool_calls: nullable(int),
  store: z.boolean(),
  background: z.boolean(),
  service_tier: z.string(),
  metadata: z.record(z.string(), z.string()),
  safety_identifier: nullable(z.string()),
  prompt_cache_key: nullable(z.string()),
  conversation: nullable(z.object({ id: z.string() })).optional(),
});

/** The answer of POST /responses/compact (the specification's CompactResource). */
export const compactResourceSchema = z.object({
  id: z.string(),
  object: z.literal('response.compaction'),
  created_at: int,
  output: z.array(itemFieldSchema),
  usage,
});

const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), sequence_number: int, ...shape });
const withResponse = { response: responseResourceSchema };
const atItem = { item_id: z.string(), output_index: int };
const atContent = { ...atItem, content_index: int };
const atSummary = { ...atItem, summary_index: int };

export const streamingEventSchema = z.discriminatedUnion('type', [
  event('response.created', withResponse),
  event('response.queued', withResponse),
  event('response.in_progress', withResponse),
  event('response.completed', withResponse),
  event('response.failed', withResponse),
  event('response.incomplete', withResponse),
  event('response.output_item.added', { output_index: int, item: nullable(itemFieldSchema) }),
  event('response.output_item.done', { output_index: int, item: nullable(itemFieldSchema) }),
  event('response.reasoning_summary_part.added', { ...atSummary, part: contentPart }),
  event('response.reasoning_summary_part.done', { ...atSummary, part: contentPart }),
  event('response.content_part.added', { ...atContent, part: contentPart }),
  event('response.content_part.done', { ...atContent, part: contentPart }),
  event('response.output_text.delta', { ...atContent, delta: z.string(), logprobs: z.array(z.unknown()).optional() }),
  event('response.output_text.done', { ...atContent, text: z.string(), logprobs: z.array(z.unknown()).optional() }),
  event('response.refusal.delta', { ...atContent, delta: z.string() }),
  event('response.refusal.done', { ...atContent, refusal: z.string() }),
  event('response.reasoning.delta', { ...atContent, delta: z.string() }),
  event('response.reasoning.done', { ...atContent, text: z.string() }),
  event('response.reasoning_summary_text.delta', { ...atSummary, delta: z.string() }),
  event('response.reasoning_summary_text.done', { ...atSummary, text: z.string() }),
  event('response.output_text.annotation.added', {
    ...atContent,
    annotation_index: int,
    annotation: nullable(z.object({ type: z.string() })),
  }),
  event('response.function_call_arguments.delta', { ...atItem, delta: z.string() }),
  event('response.function_call_arguments.done', { ...atItem, arguments: z.string() }),
  event('error', { error: z.object({ type: z.string(), code: nullable(z.string()), message: z.string(), param: nullable(z.string()) }) }),
]);

const issuesOf = (error: z.ZodError) => error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);

/** Fails with every deviation from the specification's ResponseResource. */
export function expectResponseResource(value: unknown): z.infer<typeof responseResourceSchema> {
  const parsed = responseResourceSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(`not an Open Responses ResponseResource:\n${issuesOf(parsed.error).join('\n')}\n${JSON.stringify(value)}`);
  return parsed.data;
}

/** Fails with every deviation from the specification's CompactResource. */
export function expectCompactResource(value: unknown): z.infer<typeof compactResourceSchema> {
  const parsed = compactResourceSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(`not an Open Responses CompactResource:\n${issuesOf(parsed.error).join('\n')}\n${JSON.stringify(value)}`);
  return parsed.data;
}

/** Fails with every deviation of each event from its streaming event schema. */
export function expectStreamingEvents(events: unknown[]): void {
  const problems = events.flatMap((value, i) => {
    const parsed = streamingEventSchema.safeParse(value);
    return parsed.success ? [] : [`event ${i} (${(value as { type?: string }).type}): ${issuesOf(parsed.error).join('; ')}`];
  });
  if (problems.length > 0) throw new Error(`events not as the Open Responses specification requires:\n${problems.join('\n')}`);
}
