import { z } from 'zod';

import { summaryOf } from '../common/chat';
import { isMalformedJsonBody, malformedBodyReason, openaiError } from '../common/errors';

/**
 * Request bodies of /v1/conversations in OpenAI's shapes (the SDK's ConversationCreateParams,
 * ItemCreateParams and ResponseInputItem), validated here with OpenAI's limits: at most 20 items
 * per call, metadata of at most 16 string values (keys up to 64, values up to 512 characters).
 * Unknown fields are refused (400 with `param`), never silently dropped.
 */
export const MAX_ITEMS_PER_CALL = 20;
const MAX_METADATA_KEYS = 16;

export const openaiMetadataSchema = z
  .record(z.string().min(1).max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, { message: `at most ${MAX_METADATA_KEYS} keys are allowed` })
  .refine((m) => !Object.prototype.hasOwnProperty.call(m, '__proto__'), { message: 'the key "__proto__" is not allowed' });

const inputText = z.strictObject({ type: z.literal('input_text'), text: z.string() });
const outputText = z.strictObject({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()).max(0, 'annotations are not stored').optional(),
  logprobs: z.array(z.unknown()).optional(),
});
const inputImage = z.strictObject({
  type: z.literal('input_image'),
  image_url: z.string().min(1),
  detail: z.enum(['auto', 'low', 'high']).default('auto'),
  file_id: z.null().optional(),
});
/**
 * `input_file`: a file as a base64 data URL (`file_data`, with `filename`) or by `file_url`
 * (docs/openai-conversations.md, "Input files"). `file_data` is limited as the Open Responses
 * specification limits it; the request body's own limit (BODY_LIMIT) applies first.
 */
export const MAX_FILE_DATA_CHARS = 33_554_432;
const inputFile = z
  .strictObject({
    type: z.literal('input_file'),
    filename: z.string().min(1).max(255).nullable().optional(),
    file_data: z
      .string()
      .max(MAX_FILE_DATA_CHARS, `file_data must be at most ${MAX_FILE_DATA_CHARS} characters`)
      .regex(/^data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=\s]*$/, 'file_data must be a base64 data URL: data:<media type>;base64,<data>')
      .nullable()
      .optional(),
    file_url: z
      .string()
      .regex(/^https?:\/\/\S+$/i, 'file_url must be an http(s) URL')
      .nullable()
      .optional(),
    file_id: z.null().optional(),
  })
  .refine((part) => (part.file_data != null) !== (part.file_url != null), {
    message: 'give either file_data (a data URL, with filename) or file_url',
  });
const status = z.enum(['in_progress', 'completed', 'incomplete']).optional();
/** Read-only fields of listed items, accepted (and not stored) so listed items can be sent back as input. */
const compactedBy = z.string().nullable().optional();

export const messageItemSchema = z.strictObject({
  type: z.literal('message').optional(),
  id: z.string().optional(),
  status,
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputText, outputText, inputImage, inputFile]))]),
  phase: z.enum(['commentary', 'final_answer']).nullable().optional(),
  compacted_by: compactedBy,
});
export const functionCallItemSchema = z.strictObject({
  type: z.literal('function_call'),
  id: z.string().optional(),
  status,
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  compacted_by: compactedBy,
});
export const functionCallOutputItemSchema = z.strictObject({
  type: z.literal('function_call_output'),
  id: z.string().nullable().optional(),
  status: status.nullable(),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(inputText)]),
  compacted_by: compactedBy,
});
/** A compaction item (POST /v1/responses/compact); `encrypted_content` of anyone but Parley makes it an uninterpreted item. */
export const compactionItemSchema = z.strictObject({
  type: z.literal('compaction'),
  id: z.string().nullable().optional(),
  encrypted_content: z.string().min(1),
  created_by: z.string().optional(),
  compacted_by: compactedBy,
});

/**
 * Items of a type Parley does not interpret are stored and returned unchanged (never sent to a
 * provider), within these bounds: a type name like the specification's, at most this many
 * characters of JSON and this depth of nesting (docs/openai-conversations.md).
 */
export const MAX_OTHER_ITEM_CHARS = 262_144;
export const MAX_OTHER_ITEM_DEPTH = 16;
const ITEM_TYPE = /^[a-z][a-z0-9_.]{0,63}$/;

export type MessageItemInput = z.output<typeof messageItemSchema>;
export type FunctionCallInput = z.output<typeof functionCallItemSchema>;
export type FunctionCallOutputInput = z.output<typeof functionCallOutputItemSchema>;
export type CompactionInput = { type: 'compaction'; summary: string };
/** An item Parley does not interpret: its fields as given, without `id` (Parley gives it its own). */
export type OtherItemInput = { type: 'other'; item: Record<string, unknown> };
export type InputItem = MessageItemInput | FunctionCallInput | FunctionCallOutputInput | CompactionInput | OtherItemInput;

const SCHEMA_BY_TYPE: Record<string, z.ZodType> = {
  message: messageItemSchema,
  function_call: functionCallItemSchema,
  function_call_output: functionCallOutputItemSchema,
};

/** `items[0].content[1].text`, OpenAI's way of naming a parameter. */
function paramOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), '');
}

type Issue = z.core.$ZodIssue;

/** For a union (string or parts), the branch that got furthest names the real problem. */
function deepest(issue: Issue, base: PropertyKey[]): { issue: Issue; path: PropertyKey[] } {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return { issue, path };
  const candidates = issue.errors.filter((branch) => branch.length > 0).map((branch) => deepest(branch[0], path));
  const best = candidates.reduce((a, b) => (b.path.length > a.path.length ? b : a), { issue, path });
  return best;
}

/** Parses with a zod schema; a failure is OpenAI's 400 naming the first bad parameter. */
export function parseOpenAI<S extends z.ZodType>(schema: S, input: unknown, prefix: PropertyKey[] = []): z.output<S> {
  // The body parser's markers are frozen empty objects that a schema of optional fields would accept.
  if (isMalformedJsonBody(input))
    throw openaiError(400, `We could not parse the JSON body of your request: ${malformedBodyReason(input)}.`);
  // Query strings spell U+0000 as %00; bodies holding it never get here (the body parser refuses them).
  const nul = pathToNul(input);
  if (nul) {
    const param = paramOf([...prefix, ...nul]);
    throw openaiError(400, `Invalid value for '${param || 'query'}': text must not contain U+0000.`, {
      param: param || null,
      code: 'invalid_value',
    });
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { issue, path } = deepest(result.error.issues[0], []);
  const param = paramOf([...prefix, ...path]);
  throw openaiError(400, `Invalid value for '${param || 'body'}': ${issue.message}`, { param: param || null, code: 'invalid_value' });
}

/** One input item, by its `type` (`message` when absent, as the SDK's EasyInputMessage allows). */
export function parseInputItem(raw: unknown, prefix: PropertyKey[]): InputItem {
  const type = typeof raw === 'object' && raw !== null ? ((raw as { type?: unknown }).type ?? 'message') : undefined;
  // Own keys only: a type named like an Object.prototype member ("toString") is not a schema.
  const schema = typeof type === 'string' && Object.hasOwn(SCHEMA_BY_TYPE, type) ? SCHEMA_BY_TYPE[type] : undefined;
  if (schema) return parseOpenAI(schema, raw, prefix) as InputItem;
  if (typeof type !== 'string' || !ITEM_TYPE.test(type) || Array.isArray(raw)) {
    const param = paramOf([...prefix, 'type']);
    throw openaiError(400, `Invalid item type ${JSON.stringify(type)}: expected a type name such as "message"`, {
      param,
      code: 'invalid_value',
    });
  }
  if (type === 'compaction') {
    const item = parseOpenAI(compactionItemSchema, raw, prefix);
    const summary = summaryOf(item.encrypted_content);
    if (summary !== undefined) return { type: 'compaction', summary };
  }
  return { type: 'other', item: boundedItem(raw as Record<string, unknown>, prefix) };
}

/** An uninterpreted item within its bounds, without the fields Parley sets (`id`, `compacted_by`). */
function boundedItem(raw: Record<string, unknown>, prefix: PropertyKey[]): Record<string, unknown> {
  const { id: _id, compacted_by: _compactedBy, ...item } = raw;
  const param = paramOf(prefix);
  if (depthOf(item) > MAX_OTHER_ITEM_DEPTH)
    throw openaiError(400, `Invalid value for '${param}': nested deeper than ${MAX_OTHER_ITEM_DEPTH} levels`, {
      param,
      code: 'invalid_value',
    });
  if (JSON.stringify(item).length > MAX_OTHER_ITEM_CHARS)
    throw openaiError(400, `Invalid value for '${param}': more than ${MAX_OTHER_ITEM_CHARS} characters of JSON`, {
      param,
      code: 'invalid_value',
    });
  return item;
}

function depthOf(value: unknown, depth = 0): number {
  if (typeof value !== 'object' || value === null) return depth;
  let deepest = depth + 1;
  for (const inner of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(inner, depth + 1));
    if (deepest > MAX_OTHER_ITEM_DEPTH) break;
  }
  return deepest;
}

/**
 * Built once: made on every call, it cost a conversation's creation 12-15 % of its CPU
 * (docs/performance-history.md, "Eighth session").
 */
const itemListSchema = z.array(z.unknown()).max(MAX_ITEMS_PER_CALL, `at most ${MAX_ITEMS_PER_CALL} items per call`);

export function parseInputItems(raw: unknown, param = 'items'): InputItem[] {
  const list = parseOpenAI(itemListSchema, raw, [param]);
  return list.map((item, i) => parseInputItem(item, [param, i]));
}

export const createConversationSchema = z.strictObject({
  items: z.array(z.unknown()).nullable().optional(),
  metadata: openaiMetadataSchema.nullable().optional(),
});
export const updateConversationSchema = z.strictObject({ metadata: openaiMetadataSchema.nullable() });
export const createItemsSchema = z.strictObject({ items: z.array(z.unknown()) });

/** Where a query value (or name) holds U+0000, as a path; undefined when none does. */
function pathToNul(value: unknown, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key.replace(/\u0000/g, '\\u0000')];
    const found = pathToNul(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
