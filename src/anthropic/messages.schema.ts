import { z } from 'zod';

/**
 * `POST /v1/messages` and `/v1/messages/count_tokens` request bodies: the fields of Anthropic's
 * Messages API (the installed `@anthropic-ai/sdk`'s MessageCreateParams, API version 2026-10-21)
 * that Parley translates, plus Parley's `variables` and `thread_id`. Every object is strict: any
 * other field (prompt caching's `cache_control`, citations, server tools, ...) is a 400 naming it,
 * never silently dropped (docs/anthropic-compatibility.md).
 */

const oneOf = (what: string, tags: string[]) => `${what} must be one of: ${tags.map((tag) => `'${tag}'`).join(', ')}`;

const text = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  // A text block the API answered with (and a client sends back as history) carries `citations: null`.
  citations: z.null().optional(),
});

const httpUrl = z.string().regex(/^https?:\/\//i, 'expected an http(s) URL');

const image = z.strictObject({
  type: z.literal('image'),
  source: z.discriminatedUnion(
    'type',
    [
      z.strictObject({
        type: z.literal('base64'),
        media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
        data: z.string().min(1),
      }),
      z.strictObject({ type: z.literal('url'), url: httpUrl }),
    ],
    { error: oneOf('an image source type', ['base64', 'url']) },
  ),
});

const document = z.strictObject({
  type: z.literal('document'),
  source: z.discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string().min(1) }),
      z.strictObject({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
      z.strictObject({ type: z.literal('url'), url: httpUrl }),
    ],
    { error: oneOf('a document source type', ['base64', 'text', 'url']) },
  ),
  title: z.string().nullable().optional(),
});

const toolResult = z.strictObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(text)]).optional(),
  is_error: z.boolean().optional(),
});

const toolUse = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  // As answered for a client tool; sent back with the history.
  caller: z.strictObject({ type: z.literal('direct') }).optional(),
});

const thinkingBlock = z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });

const USER_BLOCKS = ['text', 'image', 'document', 'tool_result'];
const ASSISTANT_BLOCKS = ['text', 'tool_use', 'thinking'];

const userContent = z.union([
  z.string(),
  z.array(z.discriminatedUnion('type', [text, image, document, toolResult], { error: oneOf('a user content block type', USER_BLOCKS) })),
]);
const assistantContent = z.union([
  z.string(),
  z.array(
    z.discriminatedUnion('type', [text, toolUse, thinkingBlock], { error: oneOf('an assistant content block type', ASSISTANT_BLOCKS) }),
  ),
]);
const systemContent = z.union([z.string(), z.array(text)]);

export const messageParamSchema = z.discriminatedUnion(
  'role',
  [
    z.strictObject({ role: z.literal('user'), content: userContent }),
    z.strictObject({ role: z.literal('assistant'), content: assistantContent }),
    z.strictObject({ role: z.literal('system'), content: systemContent }),
  ],
  { error: oneOf('role', ['user', 'assistant', 'system']) },
);

const tool = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'a tool name is 1 to 128 letters, digits, "_" or "-"'),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  type: z
    .literal('custom', { error: "Parley takes client tools only (type 'custom'); server tools are not available" })
    .nullable()
    .optional(),
});

const parallel = { disable_parallel_tool_use: z.boolean().optional() };
const toolChoice = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('auto'), ...parallel }),
    z.strictObject({ type: z.literal('any'), ...parallel }),
    z.strictObject({ type: z.literal('tool'), name: z.string().min(1), ...parallel }),
    z.strictObject({ type: z.literal('none') }),
  ],
  { error: oneOf('tool_choice.type', ['auto', 'any', 'tool', 'none']) },
);

const thinking = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1024) }),
    z.strictObject({ type: z.literal('disabled') }),
  ],
  { error: "Parley supports thinking {type: 'enabled', budget_tokens} and {type: 'disabled'} ('adaptive' is not available)" },
);

/** What both endpoints take: the prompt as the model would get it. */
const promptFields = {
  model: z.string().min(1).max(400),
  /** May be empty for a deployment whose template holds the whole prompt. */
  messages: z.array(messageParamSchema),
  system: systemContent.optional(),
  tools: z.array(tool).max(128).optional(),
  tool_choice: toolChoice.optional(),
  thinking: thinking.optional(),
  /** Parley: template variables of a deployed prompt or assistant. */
  variables: z.record(z.string(), z.string()).optional(),
  /** Parley: the thread an assistant continues (a new thread per call without it). */
  thread_id: z.string().max(64).optional(),
};

export const countTokensBodySchema = z.strictObject(promptFields);

export const messagesBodySchema = z.strictObject({
  ...promptFields,
  max_tokens: z.number().int().min(1),
  metadata: z.strictObject({ user_id: z.string().max(256).nullable().optional() }).optional(),
  stop_sequences: z.array(z.string()).max(64).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  /** Accepted by the schema so that its refusal can say why (messages.service.ts). */
  top_k: z.number().int().min(0).optional(),
});

export type CountTokensBody = z.output<typeof countTokensBodySchema>;
export type MessagesBody = z.output<typeof messagesBodySchema>;
/** Either body: what the translation reads (count_tokens has no output settings). */
export type PromptBody = CountTokensBody & Partial<Omit<MessagesBody, keyof CountTokensBody>>;
export type MessageParam = z.output<typeof messageParamSchema>;
export type ToolChoiceParam = z.output<typeof toolChoice>;

/**
 * Fields of Anthropic's Messages API that Parley does not translate, named so that the 400 says
 * so rather than "Extra inputs are not permitted".
 */
export const UNSUPPORTED_FIELDS = [
  'cache_control',
  'container',
  'context_management',
  'diagnostics',
  'inference_geo',
  'mcp_servers',
  'output_config',
  'service_tier',
  'speed',
] as const;
