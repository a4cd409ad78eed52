/** Text of chat-completion message content, as the adapters that need plain text read it. */
import type { ChatCompletionMessageParam } from './provider.types';

/** A string as it is; an array of parts: its text parts joined with "\n" (images etc. skipped). */
export function contentText(content: ChatCompletionMessageParam['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
