import type { ReactNode } from 'react';

import type { ChatMessage } from '../api/client';

type Part = { type?: string; text?: string; image_url?: { url?: string } };
type ToolCall = { id?: string; function?: { name?: string; arguments?: string } };

/** A message's content as plain text (text parts joined, images named): rendered as text, never as HTML. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return (content as Part[])
      .map((part) =>
        part.type === 'text'
          ? (part.text ?? '')
          : part.type === 'image_url'
            ? `[image ${part.image_url?.url ?? ''}]`
            : JSON.stringify(part),
      )
      .join('\n');
  }
  return JSON.stringify(content);
}

/** Chat bubbles: role, text, tool calls and tool results. */
export function ChatTranscript({ messages, label, links }: { messages: unknown[]; label: string; links?: (index: number) => ReactNode }) {
  return (
    <ol className="chat" aria-label={label}>
      {messages.map((raw, index) => {
        const message = raw as ChatMessage & { tool_calls?: ToolCall[]; tool_call_id?: string };
        return (
          <li key={index} className={`bubble ${message.role}`}>
            <div className="bubble-head">
              <strong>{message.role}</strong>
              {message.tool_call_id ? <span className="muted"> result of {message.tool_call_id}</span> : null}
              {links ? <span className="bubble-links">{links(index)}</span> : null}
            </div>
            {contentText(message.content) ? <div className="bubble-text">{contentText(message.content)}</div> : null}
            {(message.tool_calls ?? []).map((call, i) => (
              <div key={i} className="tool-call">
                <span className="muted">calls</span> <code>{call.function?.name}</code>
                <pre className="code small">{call.function?.arguments}</pre>
              </div>
            ))}
          </li>
        );
      })}
    </ol>
  );
}
