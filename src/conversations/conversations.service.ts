import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { openaiError } from '../common/errors';
import { CreateTransaction } from '../idempotency/create-transaction';
import { MessageStore } from '../messages/message-store';
import { ThreadEntity } from '../threads/thread.entity';
import { ThreadStore } from '../threads/thread-store';
import { createConversationSchema, parseInputItems, parseOpenAI, updateConversationSchema } from './conversation-inputs';
import { ConversationListQuery } from './conversation-queries';
import { ConversationView, ListEnvelope, toConversation, toList } from './conversations.mapper';
import { itemsToChatMessages } from './items-to-chat';

export const conversationNotFound = (id: string) =>
  openaiError(404, `Conversation with id '${id}' not found.`, { param: 'conversation_id', code: 'not_found' });

/**
 * /v1/conversations: threads seen in OpenAI's shapes. One store: a conversation is a thread with
 * the same id, so /v2 and assistant invokes see what /v1 writes and the reverse.
 */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly threads: ThreadStore,
    private readonly messages: MessageStore,
  ) {}

  /** The thread and its initial items (one turn) in one transaction (or one statement without items). */
  async create(caller: ProjectPrincipal, body: unknown, tx: CreateTransaction): Promise<ConversationView> {
    const input = parseOpenAI(createConversationSchema, body ?? {});
    const chat = itemsToChatMessages(parseInputItems(input.items ?? []));
    // Without items the conversation is one row: one statement.
    return (chat.length > 0 ? tx.run.bind(tx) : tx.runSingle.bind(tx))(async (manager) => {
      const created = await this.threads.insert(caller.projectId, input.metadata ?? {}, {}, manager);
      if (chat.length > 0) await this.messages.appendTurns(manager, caller.projectId, created.id, [{ content: chat }]);
      return toConversation(created);
    });
  }

  async retrieve(caller: ProjectPrincipal, id: string): Promise<ConversationView> {
    return toConversation(await this.requireLive(caller.projectId, id));
  }

  /** The metadata given replaces the conversation's (null clears it), as on /v2. */
  async update(caller: ProjectPrincipal, id: string, body: unknown): Promise<ConversationView> {
    const input = parseOpenAI(updateConversationSchema, body ?? {});
    const updated = await this.threads.replaceMetadataOf(caller.projectId, id, input.metadata ?? {});
    if (!updated) throw conversationNotFound(id);
    return toConversation(updated);
  }

  /** Soft delete (rows kept; the conversation and its items are then not found), as on /v2. */
  async delete(caller: ProjectPrincipal, id: string): Promise<{ id: string; object: 'conversation.deleted'; deleted: true }> {
    if (!(await this.threads.softDelete(caller.projectId, id))) throw conversationNotFound(id);
    return { id, object: 'conversation.deleted', deleted: true };
  }

  /** Parley's extension: newest first, `after` = the last id of the previous page, metadata filter. */
  async list(caller: ProjectPrincipal, query: ConversationListQuery): Promise<ListEnvelope<ConversationView>> {
    if (query.after !== undefined && !(await this.threads.exists(caller.projectId, query.after))) {
      throw openaiError(400, `No conversation with id '${query.after}' to list after.`, { param: 'after', code: 'invalid_value' });
    }
    const rows = await this.threads.listLiveEntities(caller.projectId, query.after, query.limit + 1, query.metadata);
    return toList(rows.map(toConversation), query.limit);
  }

  async requireLive(projectId: string, id: string): Promise<ThreadEntity> {
    const thread = await this.threads.findLive(projectId, id);
    if (!thread) throw conversationNotFound(id);
    return thread;
  }
}
