import { encryptedContentOf, isCompactionMessage, isStoredItem } from '../common/chat';
import { itemPosition } from '../messages/deleted-items';
import { ThreadMessageEntity } from '../messages/thread-message.entity';
import { itemId } from './item-ids';

/** Shapes of the official SDK's ConversationItem variants that Parley stores (resources/conversations). */
export type ContentPart =
  | { type: 'input_text'; text: string }
  | { type: 'output_text'; text: string; annotations: unknown[] }
  | { type: 'input_image'; image_url: string; detail: string }
  | { type: 'input_file'; filename?: string; file_data?: string; file_url?: string };

export interface MessageItem {
  id: string;
  type: 'message';
  role: string;
  status: 'completed';
  content: ContentPart[];
}
export interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: 'completed';
  call_id: string;
  name: string;
  arguments: string;
}
export interface FunctionCallOutputItem {
  id: string;
  type: 'function_call_output';
  status: 'completed';
  call_id: string;
  output: string | ContentPart[];
}
/** POST /v1/responses/compact's summary (docs/openai-conversations.md, "Compaction"). */
export interface CompactionItem {
  id: string;
  type: 'compaction';
  encrypted_content: string;
}
/** An item of a type Parley does not interpret: its fields as given, with Parley's `id`. */
export type OtherItem = Record<string, unknown> & { id: string; type: string };
/** `compacted_by`: the id of the compaction item that summarizes this item for the model (Parley's). */
export type ConversationItem = (MessageItem | FunctionCallItem | FunctionCallOutputItem | CompactionItem | OtherItem) & {
  compacted_by?: string;
};

/** An item with its position in its thread message (for cursors and deletes). */
export interface PlacedItem {
  item: ConversationItem;
  index: number;
  part: number;
}

type Chat = Record<string, unknown>;

function partsOf(content: unknown, role: string): ContentPart[] {
  const textPart = (text: string): ContentPart =>
    role === 'assistant' ? { type: 'output_text', text, annotations: [] } : { type: 'input_text', text };
  if (typeof content === 'string') return [textPart(content)];
  if (!Array.isArray(content)) return [];
  return (content as Chat[]).flatMap((part): ContentPart[] => {
    if (part.type === 'text') return [textPart(String(part.text))];
    if (part.type === 'image_url') {
      const image = part.image_url as { url: string; detail?: string };
      return [{ type: 'input_image', image_url: image.url, detail: image.detail ?? 'auto' }];
    }
    if (part.type === 'file') {
      const { filename, file_data, file_url } = part.file as { filename?: string; file_data?: string; file_url?: string };
      return [
        {
          type: 'input_file',
          ...(filename !== undefined ? { filename } : {}),
          ...(file_data !== undefined ? { file_data } : {}),
          ...(file_url !== undefined ? { file_url } : {}),
        },
      ];
    }
    return [];
  });
}

const hasText = (content: unknown) => (typeof content === 'string' ? content.length > 0 : Array.isArray(content) && content.length > 0);

/** The items of one chat message (index `i` of its thread message), in order. */
function itemsOfChatMessage(messageId: string, i: number, message: Chat): PlacedItem[] {
  const role = String(message.role);
  if (isCompactionMessage(message)) {
    const item: CompactionItem = {
      id: itemId('compaction', messageId, i, 0),
      type: 'compaction',
      encrypted_content: encryptedContentOf(String(message.content)),
    };
    return [{ item, index: i, part: 0 }];
  }
  if (isStoredItem(message)) {
    const given = message.item as Record<string, unknown>;
    return [{ item: { ...given, id: itemId('other', messageId, i, 0), type: String(given.type) }, index: i, part: 0 }];
  }
  if (role === 'tool' || role === 'function') {
    const callId = String((role === 'tool' ? message.tool_call_id : message.name) ?? '');
    const output = typeof message.content === 'string' ? message.content : partsOf(message.content, 'user');
    const item: FunctionCallOutputItem = {
      id: itemId('function_call_output', messageId, i, 0),
      type: 'function_call_output',
      status: 'completed',
      call_id: callId,
      output,
    };
    return [{ item, index: i, part: 0 }];
  }
  const calls = (Array.isArray(message.tool_calls) ? message.tool_calls : []) as {
    id: string;
    function: { name: string; arguments: string };
  }[];
  const legacy = message.function_call as { name: string; arguments: string } | undefined;
  const callItems: PlacedItem[] = calls.map((call, k) => ({
    item: {
      id: itemId('function_call', messageId, i, k + 1),
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    },
    index: i,
    part: k + 1,
  }));
  if (legacy && calls.length === 0) {
    callItems.push({
      item: {
        id: itemId('function_call', messageId, i, 1),
        type: 'function_call',
        status: 'completed',
        call_id: legacy.name,
        name: legacy.name,
        arguments: legacy.arguments,
      },
      index: i,
      part: 1,
    });
  }
  const own: PlacedItem[] =
    hasText(message.content) || callItems.length === 0
      ? [
          {
            item: {
              id: itemId('message', messageId, i, 0),
              type: 'message',
              role,
              status: 'completed',
              content: partsOf(message.content, role),
            },
            index: i,
            part: 0,
          },
        ]
      : [];
  return [...own, ...callItems];
}

/** Every live item of a thread message, oldest first; items deleted one by one are left out. */
export function itemsOfTurn(row: ThreadMessageEntity): PlacedItem[] {
  const deleted = new Set(row.deletedItems ?? []);
  const compactedBy = row.compactedBy ? itemId('compaction', row.compactedBy, 0, 0) : undefined;
  return row.content
    .flatMap((message, i) => itemsOfChatMessage(row.id, i, message))
    .filter((placed) => !deleted.has(itemPosition(placed.index, placed.part)))
    .map((placed) => (compactedBy ? { ...placed, item: { ...placed.item, compacted_by: compactedBy } } : placed));
}
