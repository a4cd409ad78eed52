import { z } from 'zod';

import { metadataProblems } from '../common/validation';

/**
 * One line of an Assistants API export: a thread object or a message object, as the API returned
 * them (`GET /v1/threads/{id}`, `GET /v1/threads/{id}/messages`). Fields Parley has no place for
 * (tool_resources, assistant_id, run_id, attachments, status, ...) are accepted and not kept.
 */
const sourceId = z.string().min(1).max(200);
const createdAt = z.number().int().min(0).max(253402300799);
const metadata = z
  .record(z.string(), z.unknown())
  .nullable()
  .optional()
  .superRefine((value, ctx) => {
    for (const problem of value ? metadataProblems(value) : []) ctx.addIssue({ code: 'custom', message: problem });
  });

export const exportedThreadSchema = z.object({
  object: z.literal('thread'),
  id: sourceId,
  created_at: createdAt,
  metadata,
});

const textPart = z.object({ type: z.literal('text'), text: z.object({ value: z.string() }) });
const imageUrlPart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).default('auto') }),
});
const imageFilePart = z.object({ type: z.literal('image_file') }).transform((_, ctx) => {
  ctx.addIssue({ code: 'custom', message: 'image_file parts name OpenAI files, which Parley cannot fetch; export them as image_url' });
  return z.NEVER;
});

export const exportedMessageSchema = z.object({
  object: z.literal('thread.message'),
  id: sourceId,
  thread_id: sourceId,
  created_at: createdAt,
  role: z.enum(['user', 'assistant']),
  content: z.array(z.discriminatedUnion('type', [textPart, imageUrlPart, imageFilePart])),
  metadata,
});

export type ExportedThread = z.output<typeof exportedThreadSchema>;
export type ExportedMessage = z.output<typeof exportedMessageSchema>;
export type ExportRecord = ExportedThread | ExportedMessage;

/** The stored chat message of an exported message: a string when it is one text part, else parts. */
export function chatMessageOf(message: ExportedMessage): Record<string, unknown> {
  const parts = message.content;
  if (parts.length === 1 && parts[0].type === 'text') return { role: message.role, content: parts[0].text.value };
  return {
    role: message.role,
    content: parts.map((part) =>
      part.type === 'text' ? { type: 'text', text: part.text.value } : { type: 'image_url', image_url: part.image_url },
    ),
  };
}
