import { z } from 'zod';

import { isCompactionMessage, isStoredItem } from '../common/chat';

/**
 * POST /v1/responses/compact's body: OpenAI's ResponseCompactParams that Parley honours, and
 * Parley's `conversation` (compact a stored conversation in place). Unknown fields are a 400.
 */
export const compactBodySchema = z.strictObject({
  model: z.string().min(1).nullable().optional(),
  input: z
    .union([z.string(), z.array(z.unknown())])
    .nullable()
    .optional(),
  instructions: z.string().nullable().optional(),
  previous_response_id: z.string().min(1).nullable().optional(),
  conversation: z
    .union([z.string().min(1), z.strictObject({ id: z.string().min(1) })])
    .nullable()
    .optional(),
});
export type CompactBody = z.output<typeof compactBodySchema>;

/**
 * Parley's own compaction instructions, used when the project has no deployment of the configured
 * compaction prompt (RESPONSES_COMPACTION_PROMPT): deploy one to change them, versioned.
 */
export const BUILT_IN_COMPACTION_INSTRUCTIONS = [
  'You compact conversations. The user message is the transcript of a conversation between a user and an assistant.',
  "Write a summary that lets the assistant continue the conversation without the transcript: the user's goals, requests and preferences;",
  'facts, names, numbers and decisions established; results of tool calls that still matter; what is still open.',
  'Write it in the language of the conversation, as plain text. Answer with the summary only.',
].join(' ');

/** How the summary is introduced to the model in place of the turns it covers. */
export const summaryMessageText = (summary: string) => `Summary of the earlier part of this conversation:\n\n${summary}`;

type Chat = Record<string, unknown>;

function partText(part: Chat): string {
  if (part.type === 'text') return String(part.text);
  if (part.type === 'image_url') return '[image]';
  if (part.type === 'file') {
    const file = part.file as { filename?: string } | undefined;
    return file?.filename ? `[file ${file.filename}]` : '[file]';
  }
  return '';
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? (content as Chat[])
          .map(partText)
          .filter((t) => t !== '')
          .join('\n')
      : '';

/**
 * The messages to summarize as one transcript: a line per message (`role: text`), tool calls and
 * results spelled out, images and files as placeholders; items Parley does not interpret are left
 * out (the model never sees them), an earlier compaction is its summary.
 */
export function transcriptOf(messages: Chat[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (isStoredItem(message)) continue;
    const role = String(message.role);
    const text = textOf(message.content);
    if (isCompactionMessage(message)) {
      lines.push(`summary of what came before: ${text}`);
      continue;
    }
    if (role === 'tool' || role === 'function') {
      lines.push(`tool result (${String(message.tool_call_id ?? message.name ?? '')}): ${text}`);
      continue;
    }
    if (text.trim() !== '') lines.push(`${role}: ${text}`);
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as { function: { name: string; arguments: string } }[]) : [];
    for (const call of calls) lines.push(`${role} called ${call.function.name}(${call.function.arguments})`);
  }
  return lines.join('\n');
}
