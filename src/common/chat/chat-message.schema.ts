import { z } from 'zod';

import { expects } from './zod-issues';

/**
 * The spec's "Message object" (used in invoke `messages`, `template` and thread message content).
 * Every object is strict: an unknown key anywhere is an `unrecognized_keys` issue, never dropped.
 */

export const CHAT_ROLES = ['assistant', 'user', 'system', 'function', 'tool'] as const;
export const chatRoleSchema = z.enum(CHAT_ROLES);

export const textContentPartSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
});

export const IMAGE_DETAILS = ['auto', 'low', 'high'] as const;

/**
 * The spec calls `detail` required yet gives it a default of `auto`; a default only means something
 * if the key may be left out, so it is optional on input and always present (`auto`) on output.
 */
export const imageContentPartSchema = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({
    url: z.string(),
    detail: z.enum(IMAGE_DETAILS).default('auto'),
  }),
});

export const contentPartSchema = z.discriminatedUnion('type', [textContentPartSchema, imageContentPartSchema]);

/** Key required, value may be null (see `chatMessageSchema` for when null is allowed). */
export const messageContentSchema = z.union(
  [z.string(), z.array(contentPartSchema), z.null()],
  expects('string, array of content parts or null'),
);

export const functionCallSchema = z.strictObject({
  name: z.string(),
  arguments: z.string(),
});

export const toolCallSchema = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: functionCallSchema,
});

/** `{type: "function", function: {name}}`, shared by the message's and the invoke body's tool_choice. */
export const namedFunctionChoiceSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({ name: z.string() }),
});

export const messageToolChoiceSchema = z.union(
  [z.enum(['auto', 'none']), namedFunctionChoiceSchema],
  expects('"auto", "none" or {type: "function", function: {name}}'),
);

/** Fields of the message object without the cross-field rule; reused by thread message input. */
export const chatMessageShape = {
  role: chatRoleSchema,
  name: z.string().optional(),
  content: messageContentSchema,
  function_call: functionCallSchema.optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  tool_choice: messageToolChoiceSchema.optional(),
  tool_call_id: z.string().optional(),
};

/**
 * Spec: "null may be used when function_call or tool_calls is present". Enforced here (as the
 * chat-completion APIs do) so a bad message is a 400 of ours rather than a provider error.
 */
export const chatMessageSchema = z.strictObject(chatMessageShape).superRefine((message, ctx) => {
  const hasCalls = (message.tool_calls?.length ?? 0) > 0 || message.function_call !== undefined;
  if (message.content === null && !hasCalls) {
    ctx.addIssue({
      code: 'custom',
      path: ['content'],
      input: null,
      message: 'Expected string or array of content parts (null only with tool_calls or function_call)',
    });
  }
});

export type ChatRole = z.output<typeof chatRoleSchema>;
export type TextContentPart = z.output<typeof textContentPartSchema>;
export type ImageContentPart = z.output<typeof imageContentPartSchema>;
export type ImageDetail = (typeof IMAGE_DETAILS)[number];
export type ContentPart = z.output<typeof contentPartSchema>;
export type MessageContent = z.output<typeof messageContentSchema>;
export type FunctionCall = z.output<typeof functionCallSchema>;
export type ToolCall = z.output<typeof toolCallSchema>;
export type NamedFunctionChoice = z.output<typeof namedFunctionChoiceSchema>;
export type MessageToolChoice = z.output<typeof messageToolChoiceSchema>;
/** A validated message (image `detail` filled in). */
export type ChatMessage = z.output<typeof chatMessageSchema>;
/** What a client may send (image `detail` optional). */
export type ChatMessageInput = z.input<typeof chatMessageSchema>;
