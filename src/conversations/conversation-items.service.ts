import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { openaiError } from '../common/errors';
import { CreateTransaction } from '../idempotency/create-transaction';
import { itemPosition } from '../messages/deleted-items';
import { MessageStore } from '../messages/message-store';
import { ThreadMessageEntity } from '../messages/thread-message.entity';
import { createItemsSchema, parseInputItems, parseOpenAI } from './conversation-inputs';
import { ConversationItem, itemsOfTurn, PlacedItem } from './conversation-items.mapper';
import { ItemListQuery } from './conversation-queries';
import { ConversationView, ItemList, toConversation, toList } from './conversations.mapper';
import { ConversationsService } from './conversations.service';
import { comparePositions, ItemAddress, parseItemId } from './item-ids';
import { itemsToChatMessages } from './items-to-chat';

const itemNotFound = (id: string) => openaiError(404, `Item with id '${id}' not found.`, { param: 'item_id', code: 'not_found' });

/** Items of a conversation: the chat messages of its thread's live messages, in sequence order. */
@Injectable()
export class ConversationItemsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly conversations: ConversationsService,
    private readonly messages: MessageStore,
  ) {}

  /** Up to 20 items appended as one turn (one thread message), atomically and contiguously. */
  async create(caller: ProjectPrincipal, conversationId: string, body: unknown, tx: CreateTransaction): Promise<ItemList> {
    const input = parseOpenAI(createItemsSchema, body ?? {});
    const chat = itemsToChatMessages(parseInputItems(input.items));
    await this.conversations.requireLive(caller.projectId, conversationId);
    if (chat.length === 0) return toList([], 0);
    return tx.run(async (manager) => {
      const [turn] = await this.messages.appendTurns(manager, caller.projectId, conversationId, [{ content: chat }]);
      const items = itemsOfTurn(turn).map((placed) => placed.item);
      return toList(items, items.length);
    });
  }

  async list(caller: ProjectPrincipal, conversationId: string, query: ItemListQuery): Promise<ItemList> {
    await this.conversations.requireLive(caller.projectId, conversationId);
    let cursor: (ItemAddress & { seq: number }) | null = null;
    if (query.after !== undefined) {
      const address = parseItemId(query.after);
      const seq = address ? await this.messages.sequenceOf(caller.projectId, conversationId, address.messageId) : null;
      if (!address || seq === null)
        throw openaiError(400, `No item with id '${query.after}' in this conversation.`, { param: 'after', code: 'invalid_value' });
      cursor = { ...address, seq };
    }
    const items = await this.collect(caller.projectId, conversationId, query, cursor);
    return toList(items, query.limit);
  }

  async retrieve(caller: ProjectPrincipal, conversationId: string, itemId: string): Promise<ConversationItem> {
    await this.conversations.requireLive(caller.projectId, conversationId);
    const found = await this.find(caller.projectId, conversationId, itemId);
    if (!found) throw itemNotFound(itemId);
    return found.placed.item;
  }

  /** Marks the item deleted (rows kept); answers the conversation, as OpenAI does. */
  async delete(caller: ProjectPrincipal, conversationId: string, itemId: string): Promise<ConversationView> {
    const thread = await this.conversations.requireLive(caller.projectId, conversationId);
    // The exact id must name a live item (its prefix included); the position is then checked again under the row lock.
    const found = await this.find(caller.projectId, conversationId, itemId);
    const livePositions = (row: ThreadMessageEntity) => itemsOfTurn(row).map((placed) => itemPosition(placed.index, placed.part));
    const deleted = found
      ? await this.messages.deleteItem(
          caller.projectId,
          conversationId,
          found.row.id,
          itemPosition(found.placed.index, found.placed.part),
          livePositions,
        )
      : null;
    if (!deleted) throw itemNotFound(itemId);
    return toConversation(thread);
  }

  private async find(
    projectId: string,
    conversationId: string,
    itemId: string,
  ): Promise<{ row: ThreadMessageEntity; placed: PlacedItem } | null> {
    const address = parseItemId(itemId);
    const row = address ? await this.messages.findLiveEntity(projectId, conversationId, address.messageId) : null;
    const placed = row ? itemsOfTurn(row).find((candidate) => candidate.item.id === itemId) : undefined;
    return row && placed ? { row, placed } : null;
  }

  /** `limit + 1` items after the cursor (so has_more is known), reading messages a page at a time. */
  private async collect(
    projectId: string,
    conversationId: string,
    query: ItemListQuery,
    cursor: (ItemAddress & { seq: number }) | null,
  ): Promise<ConversationItem[]> {
    const wanted = query.limit + 1;
    const items: ConversationItem[] = [];
    let fromSeq = cursor ? cursor.seq : null;
    for (;;) {
      const rows = await this.messages.listLiveFrom(projectId, conversationId, query.order, fromSeq, wanted + 1);
      for (const row of rows) {
        if (fromSeq !== null && row.seq === fromSeq && !(cursor && row.seq === cursor.seq)) continue;
        let placed = itemsOfTurn(row);
        if (query.order === 'desc') placed = placed.reverse();
        const at = cursor;
        if (at && row.seq === at.seq) {
          placed = placed.filter((p) => (query.order === 'asc' ? comparePositions(p, at) > 0 : comparePositions(p, at) < 0));
        }
        items.push(...placed.map((p) => p.item));
      }
      if (items.length >= wanted || rows.length < wanted + 1) return items;
      fromSeq = rows[rows.length - 1].seq;
      cursor = null;
    }
  }
}
