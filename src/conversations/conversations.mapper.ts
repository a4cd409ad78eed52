import { ThreadEntity } from '../threads/thread.entity';
import { ConversationItem } from './conversation-items.mapper';

/** The SDK's Conversation: a thread seen through /v1 (same id, same metadata). */
export interface ConversationView {
  id: string;
  object: 'conversation';
  created_at: number;
  metadata: Record<string, string | number>;
}

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export const toConversation = (thread: ThreadEntity): ConversationView => ({
  id: thread.id,
  object: 'conversation',
  created_at: Math.floor(thread.createdAt.getTime() / 1000),
  metadata: thread.metadata,
});

export function toList<T extends { id: string }>(rows: T[], limit: number): ListEnvelope<T> {
  const data = rows.slice(0, limit);
  return {
    object: 'list',
    data,
    first_id: data.length > 0 ? data[0].id : null,
    last_id: data.length > 0 ? data[data.length - 1].id : null,
    has_more: rows.length > limit,
  };
}

export type ItemList = ListEnvelope<ConversationItem>;
