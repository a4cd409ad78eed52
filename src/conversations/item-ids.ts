import { isUuid } from '../common/ids';

/**
 * Conversation item ids. A thread message (one turn) holds one or more chat messages, and a chat
 * message may be several items (its text, then one item per tool call), so an item id names the
 * thread message, the chat message's index in it and the part:
 *
 *   <prefix>_<thread message id, 32 hex digits>_<message index>_<part>
 *
 * `part` 0 is the message itself (a `message` or `function_call_output` item), `k + 1` is its tool
 * call `k` (a `function_call` item). Prefixes follow OpenAI's (`msg`, `fc`, `fco`). Ids are stable:
 * nothing ever renumbers a stored turn (deleted items are only marked, see deleted-items.ts).
 */
export type ItemType = 'message' | 'function_call' | 'function_call_output' | 'compaction' | 'other';

/** `cmp`: a compaction; `itm`: an item of a type Parley does not interpret (stored as given). */
const PREFIX: Record<ItemType, string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  compaction: 'cmp',
  other: 'itm',
};
const ITEM_ID = /^(msg|fc|fco|cmp|itm)_([0-9a-f]{32})_(\d{1,4})_(\d{1,4})$/;

export interface ItemAddress {
  messageId: string;
  index: number;
  part: number;
}

export function itemId(type: ItemType, messageId: string, index: number, part: number): string {
  return `${PREFIX[type]}_${messageId.replace(/-/g, '')}_${index}_${part}`;
}

/** The address an item id names, or null when the string cannot be an item id of Parley's. */
export function parseItemId(id: string): ItemAddress | null {
  const match = ITEM_ID.exec(id);
  if (!match) return null;
  const hex = match[2];
  const messageId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return isUuid(messageId) ? { messageId, index: Number(match[3]), part: Number(match[4]) } : null;
}

/** Position order inside one thread message: by chat message, then part. */
export const comparePositions = (a: { index: number; part: number }, b: { index: number; part: number }) =>
  a.index - b.index || a.part - b.part;
