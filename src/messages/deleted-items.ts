/**
 * A chat message of a thread turn may be seen through /v1 as several conversation items: item
 * `i:0` is chat message `i` itself (its text, or the whole message for tool results), item
 * `i:k+1` is its tool call `k`. Items deleted one by one are listed in the row's `deleted_items`
 * (see the ConversationItems migration); this leaves them out of a turn's content.
 */
export const itemPosition = (messageIndex: number, part: number) => `${messageIndex}:${part}`;

type ChatMessage = Record<string, unknown>;

export function visibleContent(content: ChatMessage[], deletedItems: readonly string[] | null | undefined): ChatMessage[] {
  if (!deletedItems || deletedItems.length === 0) return content;
  const deleted = new Set(deletedItems);
  return content.flatMap((message, i) => {
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : undefined;
    const keptCalls = calls?.filter((_, k) => !deleted.has(itemPosition(i, k + 1)));
    const ownDeleted = deleted.has(itemPosition(i, 0));
    if (ownDeleted && !(keptCalls && keptCalls.length > 0)) return [];
    const visible: ChatMessage = { ...message };
    if (ownDeleted) visible.content = null;
    if (calls) {
      if (keptCalls!.length > 0) visible.tool_calls = keptCalls;
      else delete visible.tool_calls;
    }
    if (visible.content === null && !visible.tool_calls && !visible.function_call) return [];
    return [visible];
  });
}
