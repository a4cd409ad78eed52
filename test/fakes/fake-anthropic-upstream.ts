/**
 * A fake Anthropic Messages API upstream (POST /v1/messages), for provider and e2e tests.
 *
 *   const fake = await start();          // or startFakeAnthropicUpstream()
 *   creds = { type: 'anthropic', baseUrl: fake.url, apiKey: 'sk-ant-test' }   // fake.url is the host
 *   fake.requests[0].body                // the exact JSON body Parley sent; .headers, .path too
 *   fake.setNext(anthropicJson(anthropicMessage({ text: 'hi' })))
 *   fake.setNext(anthropicStream(anthropicEvents({ text: ['Hel', 'lo'] })))
 *   fake.setNext(anthropicError(529, 'overloaded_error', 'Overloaded'))
 *   await fake.close()
 *
 * With nothing queued it echoes the text of the last user turn (string content or text blocks),
 * as a message or, when `stream` is set, as the Messages API event stream
 * (`event: message_start` ... `event: message_stop`). POST /v1/messages/count_tokens answers
 * `{input_tokens}`. Other paths answer 404.
 *
 * Like the Messages API it authenticates with `x-api-key` only: a request without it, or with an
 * `Authorization` header, answers 401 `authentication_error` (whatever was queued).
 */
import { Behaviour, FakeUpstream, RecordedRequest, startFakeUpstream } from './fake-upstream';

export type { Behaviour, FakeUpstream, RecordedRequest } from './fake-upstream';

type ToolUse = { id: string; name: string; input: Record<string, unknown> };
/** Usage as the Messages API reports it: `input_tokens` excludes the cache reads and writes. */
type Usage = { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };

export function anthropicMessage(opts: { text?: string; toolUses?: ToolUse[]; stopReason?: string; model?: string; usage?: Usage }) {
  const content: object[] = [];
  if (opts.text !== undefined) content.push({ type: 'text', text: opts.text, citations: null });
  for (const use of opts.toolUses ?? []) content.push({ type: 'tool_use', id: use.id, name: use.name, input: use.input });
  return {
    id: 'msg_fake_1',
    type: 'message',
    role: 'assistant',
    model: opts.model ?? 'claude-fake',
    content,
    stop_reason: opts.stopReason ?? (opts.toolUses?.length ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { cache_creation_input_tokens: null, cache_read_input_tokens: null, ...(opts.usage ?? { input_tokens: 12, output_tokens: 4 }) },
  };
}

/**
 * The event sequence of a streamed message: message_start, a text block (its deltas), one
 * tool_use block per tool (input as input_json_delta pieces), message_delta, message_stop.
 */
export function anthropicEvents(opts: {
  text?: string[];
  toolUses?: Array<{ id: string; name: string; jsonPieces: string[] }>;
  stopReason?: string;
  model?: string;
  usage?: Usage;
}) {
  const usage = opts.usage ?? { input_tokens: 12, output_tokens: 4 };
  const events: Array<{ event: string; data: object }> = [];
  const push = (data: { type: string; [field: string]: unknown }) => events.push({ event: data.type, data });
  push({
    type: 'message_start',
    message: { ...anthropicMessage({ model: opts.model, usage: { ...usage, output_tokens: 1 } }), content: [], stop_reason: null },
  });
  let index = 0;
  if (opts.text) {
    push({ type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } });
    events.push({ event: 'ping', data: { type: 'ping' } });
    for (const text of opts.text) push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    push({ type: 'content_block_stop', index });
    index += 1;
  }
  for (const use of opts.toolUses ?? []) {
    push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } });
    for (const partial_json of use.jsonPieces)
      push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    push({ type: 'content_block_stop', index });
    index += 1;
  }
  const stopReason = opts.stopReason ?? (opts.toolUses?.length ? 'tool_use' : 'end_turn');
  push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  push({ type: 'message_stop' });
  return events;
}

export function anthropicJson(body: unknown, status = 200, headers?: Record<string, string>): Behaviour {
  return { type: 'json', status, body, headers };
}

export function anthropicStream(
  events: Array<{ event: string; data: object }>,
  extra: Partial<Extract<Behaviour, { type: 'sse' }>> = {},
): Behaviour {
  return { type: 'sse', ...extra, events };
}

export function anthropicError(status: number, type: string, message: string, headers?: Record<string, string>): Behaviour {
  return anthropicJson({ type: 'error', error: { type, message } }, status, headers);
}

function lastUserText(body: any): string {
  const user = [...(body?.messages ?? [])].reverse().find((m: any) => m.role === 'user');
  if (typeof user?.content === 'string') return user.content;
  return (user?.content ?? [])
    .filter((b: any) => b.type === 'text')
    .map((b: any) => b.text)
    .join('\n');
}

function echo(req: RecordedRequest): Behaviour {
  // Token counting: the words of every text in the request (deterministic, not Anthropic's tokenizer).
  if (req.method === 'POST' && req.path === '/v1/messages/count_tokens')
    return anthropicJson({ input_tokens: JSON.stringify(req.body).split(/\s+/).length });
  if (req.method !== 'POST' || req.path !== '/v1/messages')
    return anthropicError(404, 'not_found_error', `No route ${req.method} ${req.path}`);
  const text = lastUserText(req.body);
  const model = req.body?.model ?? 'claude-fake';
  const usage = { input_tokens: 12, output_tokens: text.split(/\s+/).filter(Boolean).length };
  if (!req.body?.stream) return anthropicJson(anthropicMessage({ text, model, usage }));
  return anthropicStream(anthropicEvents({ text: text.split(/(?<=\S)(?=\s)/).filter(Boolean), model, usage }));
}

function apiKeyOnly(req: RecordedRequest): Behaviour | undefined {
  if (req.headers.authorization !== undefined) return anthropicError(401, 'authentication_error', 'Use the x-api-key header');
  if (!req.headers['x-api-key']) return anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (!req.headers['anthropic-version']) return anthropicError(400, 'invalid_request_error', 'anthropic-version header is required');
  return undefined;
}

export function startFakeAnthropicUpstream(): Promise<FakeUpstream> {
  return startFakeUpstream(echo, apiKeyOnly);
}

export const start = startFakeAnthropicUpstream;
