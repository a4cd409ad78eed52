import { ApiError, consoleHeaders, errorMessageOf } from './client';

export interface StreamEvents {
  onText(delta: string): void;
  onToolCall(name: string, args: string): void;
}

export interface StreamOutcome {
  threadId: string | null;
  /** The call's request log (x-parley-log-id): its latency, tokens and cost once the stream ended. */
  logId: string | null;
}

interface ChunkDelta {
  content?: string | null;
  tool_calls?: { index: number; function?: { name?: string; arguments?: string } }[];
}

/**
 * POSTs an invoke with `stream: true` and reads the server-sent events (chat.completion.chunk,
 * then [DONE]), reporting text and tool calls as they arrive.
 */
export async function invokeStream(url: string, body: object, events: StreamEvents, signal?: AbortSignal): Promise<StreamOutcome> {
  const response = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', ...consoleHeaders('POST') },
    body: JSON.stringify({ ...body, stream: true }),
    signal,
  });
  if (!response.ok || !response.body) {
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the status says enough
    }
    throw new ApiError(response.status, errorMessageOf(parsed, response.status));
  }
  const tools = new Map<number, { name: string; args: string }>();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data || data === '[DONE]') continue;
      const chunk = JSON.parse(data) as { error?: unknown; choices?: { delta?: ChunkDelta }[] };
      if (chunk.error) throw new ApiError(502, errorMessageOf(chunk, 502));
      const delta = chunk.choices?.[0]?.delta;
      if (delta?.content) events.onText(delta.content);
      for (const call of delta?.tool_calls ?? []) {
        const tool = tools.get(call.index) ?? { name: '', args: '' };
        tool.name += call.function?.name ?? '';
        tool.args += call.function?.arguments ?? '';
        tools.set(call.index, tool);
      }
    }
  }
  for (const tool of tools.values()) events.onToolCall(tool.name, tool.args);
  return { threadId: response.headers.get('x-parley-thread-id'), logId: response.headers.get('x-parley-log-id') };
}
