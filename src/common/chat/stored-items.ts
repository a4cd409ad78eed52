/**
 * Conversation items that are not chat messages, kept in a thread's turns beside the chat
 * messages (docs/openai-conversations.md, "Compaction" and "Items Parley does not interpret"):
 *
 * - a **compaction** (Parley's summary of the turns before it) is stored as the system message the
 *   model gets in their place, marked with `parley_compaction: true`;
 * - an **uninterpreted item** (a type Parley does not translate: `reasoning` given as input,
 *   `item_reference`, built-in tool items, ...) is stored unchanged as `{role: "parley_item", item}`.
 *
 * Neither marker reaches a provider or the spec's /v2 views: `forModel` and `forView` are applied
 * where messages leave for one or the other.
 */
export const COMPACTION_MARK = 'parley_compaction';
export const ITEM_ROLE = 'parley_item';

/** Parley's own compaction items: `encrypted_content` is this prefix and the summary's base64. */
const COMPACTION_PREFIX = 'parley.compaction.v1.';

type Message = Record<string, unknown>;

export const isCompactionMessage = (message: Message): boolean => message[COMPACTION_MARK] === true;
export const isStoredItem = (message: Message): boolean => message.role === ITEM_ROLE;

export function compactionMessage(summary: string): Message {
  return { role: 'system', content: summary, [COMPACTION_MARK]: true };
}

export const encryptedContentOf = (summary: string): string => COMPACTION_PREFIX + Buffer.from(summary, 'utf8').toString('base64');

/** The summary inside one of Parley's compaction items; undefined for anyone else's (opaque to Parley). */
export function summaryOf(encryptedContent: string): string | undefined {
  if (!encryptedContent.startsWith(COMPACTION_PREFIX)) return undefined;
  const data = encryptedContent.slice(COMPACTION_PREFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return undefined;
  const summary = Buffer.from(data, 'base64').toString('utf8');
  return summary.length > 0 ? summary : undefined;
}

/** What a provider gets: uninterpreted items left out, a compaction as its plain system message. */
export function forModel<M extends object>(messages: M[]): M[] {
  if (!messages.some((m) => isStoredItem(m as Message) || isCompactionMessage(m as Message))) return messages;
  return messages.filter((m) => !isStoredItem(m as Message)).map((m) => (isCompactionMessage(m as Message) ? withoutMark(m) : m));
}

/** The spec's /v2 message views: the same as the model's (a compaction shows as its system message). */
export const forView = forModel;

function withoutMark<M extends object>(message: M): M {
  const { [COMPACTION_MARK]: _mark, ...rest } = message as Message;
  return rest as M;
}
