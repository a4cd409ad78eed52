// The schema alone (not the client): test/console-playground.spec.ts imports this file without a browser.
import type { components } from '../../api/schema';

type ChatMessage = components['schemas']['VersionDto']['template'][number];

/**
 * The template's messages as the playground edits them, chat-style or as JSON: pure functions, so
 * both views change the same list. A message keeps every field it has (`name`, `tool_calls`,
 * `tool_call_id`, content parts): a card edits its role and text, the JSON view everything.
 */
export type Role = ChatMessage['role'];
export const CARD_ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

const callsOf = (message: ChatMessage) => (message.tool_calls ?? []).map((call) => call.id);

/** The tool calls made before `index` that no tool message before it answers yet, oldest first. */
export function openToolCalls(messages: readonly ChatMessage[], index: number): string[] {
  const open: string[] = [];
  for (const message of messages.slice(0, index)) {
    open.push(...callsOf(message).filter(Boolean));
    const answered = message.role === 'tool' ? message.tool_call_id : undefined;
    const at = answered ? open.indexOf(answered) : -1;
    if (at >= 0) open.splice(at, 1);
  }
  return open;
}

/** The roles a card offers: `tool` only where it answers a call (an earlier assistant message's tool call), or already is one. */
export function rolesFor(messages: readonly ChatMessage[], index: number): Role[] {
  const tool = messages[index]?.role === 'tool' || openToolCalls(messages, index).length > 0;
  return CARD_ROLES.filter((role) => role !== 'tool' || tool);
}

/** A message with another role: a tool message answers the oldest open call; any other has no `tool_call_id`. */
export function withRole(messages: readonly ChatMessage[], index: number, role: Role): ChatMessage[] {
  return messages.map((message, i) => {
    if (i !== index || message.role === role) return message;
    const { tool_call_id: _answered, ...rest } = message;
    const call = openToolCalls(messages, index)[0];
    return role === 'tool' && call ? { ...rest, role, tool_call_id: call } : { ...rest, role };
  });
}

/** A message with new text: a string content; null again when it is emptied on a message that only calls tools. */
export function withText(messages: readonly ChatMessage[], index: number, text: string): ChatMessage[] {
  return messages.map((message, i) =>
    i !== index ? message : { ...message, content: text === '' && callsOf(message).length > 0 ? null : text },
  );
}

/** The text a card edits; null when the content is parts (images): those are edited as JSON. */
export function cardText(message: ChatMessage): string | null {
  if (typeof message.content === 'string') return message.content;
  return message.content === null ? '' : null;
}

/** The list with the message at `index` moved one place up (-1) or down (+1); unchanged at either end. */
export function moveMessage<T>(messages: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (index < 0 || index >= messages.length || to < 0 || to >= messages.length) return [...messages];
  const moved = [...messages];
  [moved[index], moved[to]] = [moved[to], moved[index]];
  return moved;
}

export function removeMessage<T>(messages: readonly T[], index: number): T[] {
  return messages.filter((_, i) => i !== index);
}

/** A new empty message at the end: a user turn, or the assistant's after a user turn. */
export function addMessage(messages: readonly ChatMessage[]): ChatMessage[] {
  const role: Role = messages[messages.length - 1]?.role === 'user' ? 'assistant' : 'user';
  return [...messages, { role, content: '' }];
}

export function messagesToJson(messages: readonly ChatMessage[]): string {
  return JSON.stringify(messages, null, 2);
}

export type ParsedMessages = { messages: ChatMessage[]; problem: null } | { messages: null; problem: string };

const ROLES = ['system', 'user', 'assistant', 'tool', 'function'];

/**
 * The JSON view's text as messages, or what is wrong with it (the text itself is kept by the
 * editor, never dropped): not JSON, not a list, a message that is no object, has no known role, or
 * a content that is neither text, a list of parts, nor null. The server checks the rest.
 */
export function messagesFromJson(text: string): ParsedMessages {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { messages: null, problem: `Not valid JSON: ${(error as Error).message}` };
  }
  if (!Array.isArray(value)) return { messages: null, problem: 'The messages must be a JSON list: [ {"role": …, "content": …}, … ]' };
  for (const [index, message] of value.entries()) {
    const where = `Message ${index + 1}`;
    if (typeof message !== 'object' || message === null || Array.isArray(message))
      return { messages: null, problem: `${where} is not an object` };
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof role !== 'string' || !ROLES.includes(role))
      return { messages: null, problem: `${where}: "role" must be one of ${ROLES.join(', ')}` };
    if (!(typeof content === 'string' || Array.isArray(content) || content === null))
      return { messages: null, problem: `${where}: "content" must be text, a list of parts or null` };
  }
  return { messages: value as ChatMessage[], problem: null };
}
