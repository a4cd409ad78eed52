import { z } from 'zod';

import { parseOpenAI } from './conversation-inputs';

/**
 * Query strings of the list endpoints. Unknown parameters are ignored, as on /v2's lists; `include`
 * (and the SDK's `include[]`) is accepted and has nothing to add, since Parley stores no extra
 * item fields.
 */
const limitSchema = z
  .string()
  .regex(/^(100|[1-9][0-9]?)$/, 'limit must be an integer from 1 to 100')
  .transform(Number)
  .default(20);

export const itemListQuerySchema = z.object({
  after: z.string().min(1).optional(),
  limit: limitSchema,
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type ItemListQuery = z.output<typeof itemListQuerySchema>;

export const conversationListQuerySchema = z.object({ after: z.string().min(1).optional(), limit: limitSchema });

export interface ConversationListQuery {
  after?: string;
  limit: number;
  /** Every pair must match (Parley's extension: `?metadata[key]=value`). */
  metadata: Record<string, string>;
}

export function parseItemListQuery(raw: Record<string, unknown>): ItemListQuery {
  return parseOpenAI(itemListQuerySchema, raw);
}

const metadataFilterSchema = z.record(z.string().min(1).max(64), z.string().max(512));

/** `metadata[key]=value` arrives as such a key (simple parser) or as a nested object (extended parser). */
export function parseConversationListQuery(raw: Record<string, unknown>): ConversationListQuery {
  const { after, limit } = parseOpenAI(conversationListQuerySchema, raw);
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const match = /^metadata\[(.+)\]$/.exec(key);
    if (match) metadata[match[1]] = value;
    else if (key === 'metadata' && typeof value === 'object' && value !== null) Object.assign(metadata, value);
  }
  const filter = parseOpenAI(metadataFilterSchema, metadata, ['metadata']);
  return { after, limit, metadata: filter };
}
