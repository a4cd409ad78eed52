import { Injectable } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import { openaiError } from '../common/errors';
import { itemsOfTurn } from '../conversations/conversation-items.mapper';
import { ItemListQuery } from '../conversations/conversation-queries';
import { ItemList, toList } from '../conversations/conversations.mapper';
import { ThreadMessageEntity } from '../messages/thread-message.entity';
import { ResponseEntity } from './response.entity';
import { withRequiredFields } from './response-base';
import type { ResponseObject } from './response-object';
import { ResponsesRepository } from './responses.repository';
import { uuidOfResponseId } from './responses.schema';

const responseNotFound = (id: string) =>
  openaiError(404, `Response with id '${id}' not found.`, { param: 'response_id', code: 'not_found' });

/** GET/DELETE /v1/responses/{id} and its input items: what `store` kept (deleted ones are not found). */
@Injectable()
export class StoredResponsesService {
  constructor(private readonly responses: ResponsesRepository) {}

  /** The Response as answered, with every field the specification requires (older rows filled with defaults). */
  async retrieve(caller: ProjectPrincipal, id: string): Promise<ResponseObject> {
    return withRequiredFields((await this.require(caller.projectId, id)).body);
  }

  /** Soft delete: the row stays, the response is then not found (and ends any chain through it). */
  async delete(caller: ProjectPrincipal, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    const uuid = uuidOfResponseId(id);
    if (!uuid || !(await this.responses.softDelete(caller.projectId, uuid))) throw responseNotFound(id);
    return { id, object: 'response', deleted: true };
  }

  /**
   * This response's input as items (ids as conversation items', on the response's id), with
   * `after`, `limit` and `order` (default desc) as OpenAI's input_items list.
   */
  async inputItems(caller: ProjectPrincipal, id: string, query: ItemListQuery): Promise<ItemList> {
    const row = await this.require(caller.projectId, id);
    const asTurn = { id: row.id, content: row.input, deletedItems: null } as unknown as ThreadMessageEntity;
    let items = itemsOfTurn(asTurn).map((placed) => placed.item);
    if (query.order === 'desc') items = items.reverse();
    if (query.after !== undefined) {
      const at = items.findIndex((item) => item.id === query.after);
      if (at < 0)
        throw openaiError(400, `No item with id '${query.after}' in this response's input.`, { param: 'after', code: 'invalid_value' });
      items = items.slice(at + 1);
    }
    return toList(items.slice(0, query.limit + 1), query.limit);
  }

  private async require(projectId: string, id: string): Promise<ResponseEntity> {
    const uuid = uuidOfResponseId(id);
    const row = uuid ? await this.responses.findLive(projectId, uuid) : null;
    if (!row) throw responseNotFound(id);
    return row;
  }
}
