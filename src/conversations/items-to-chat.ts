import { compactionMessage, ITEM_ROLE } from '../common/chat';
import { openaiError } from '../common/errors';
import { InputItem, MessageItemInput } from './conversation-inputs';

/**
 * Input items → the chat messages a thread stores (and every provider takes). A `message` item is
 * one chat message of its role (`developer` kept as the chat-completions role; `input_image` an
 * `image_url` part, `input_file` a `file` part, user messages only); consecutive
 * `function_call` items join the assistant message before them as its `tool_calls` (the shape
 * chat-completion providers require); a `function_call_output` is a `tool` message.
 */
type Chat = Record<string, unknown>;

function chatContent(item: MessageItemInput, index: number): Chat['content'] {
  if (typeof item.content === 'string') return item.content;
  return item.content.map((part, j) => {
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text };
    if (item.role !== 'user') {
      const what = part.type === 'input_image' ? 'images' : 'files';
      throw openaiError(400, `Only user messages can carry ${what} (a ${item.role} message cannot)`, {
        param: `items[${index}].content[${j}]`,
        code: 'invalid_value',
      });
    }
    if (part.type === 'input_image') return { type: 'image_url', image_url: { url: part.image_url, detail: part.detail } };
    // The chat-completion `file` part; `file_url` is Parley's own field there (each adapter sends or refuses it).
    const source = part.file_data != null ? { file_data: part.file_data } : { file_url: part.file_url };
    return { type: 'file', file: { ...(part.filename != null ? { filename: part.filename } : {}), ...source } };
  });
}

export function itemsToChatMessages(items: InputItem[]): Chat[] {
  const out: Chat[] = [];
  items.forEach((item, index) => {
    if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
      const last = out[out.length - 1];
      if (last && last.role === 'assistant' && !last.function_call) {
        last.tool_calls = [...((last.tool_calls as unknown[]) ?? []), call];
      } else {
        out.push({ role: 'assistant', content: null, tool_calls: [call] });
      }
    } else if (item.type === 'compaction') {
      out.push(compactionMessage(item.summary));
    } else if (item.type === 'other') {
      out.push({ role: ITEM_ROLE, item: item.item });
    } else if (item.type === 'function_call_output') {
      const content = typeof item.output === 'string' ? item.output : item.output.map((part) => ({ type: 'text', text: part.text }));
      out.push({ role: 'tool', tool_call_id: item.call_id, content });
    } else {
      out.push({ role: item.role, content: chatContent(item, index) });
    }
  });
  return out;
}
