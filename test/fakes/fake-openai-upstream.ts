/**
 * A fake OpenAI-compatible upstream (POST /v1/chat/completions), for provider and e2e tests.
 *
 *   const fake = await start();          // or startFakeOpenAIUpstream()
 *   creds = { type: 'openai', baseUrl: fake.url, apiKey: 'sk-test' }   // fake.url ends in /v1
 *   fake.requests[0].body                // the exact JSON body Parley sent; .headers, .path too
 *   fake.setNext(openaiError(500, 'boom'), openaiJson(openaiCompletion({ content: 'hi' })))
 *   fake.setNext(openaiStream(openaiChunks({ content: ['Hel', 'lo'] })))
 *   await fake.close()
 *
 * Usage may carry `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`.
 * With nothing queued it behaves like a model that echoes the last user message (word-split
 * chunks and a usage chunk when `stream` / `stream_options.include_usage` are set), model name as
 * asked. POST /v1/embeddings answers `fakeEmbedding` vectors (float; `dimensions` as asked, else 8),
 * one per input, usage 3 tokens per input. Other paths answer 404 in the OpenAI error format.
 */
import { Behaviour, FakeUpstream, RecordedRequest, startFakeUpstream } from './fake-upstream';

export type { Behaviour, FakeUpstream, RecordedRequest } from './fake-upstream';

type ToolCall = { id: string; name: string; arguments: string };
/** Usage as OpenAI reports it; the details (cached prompt tokens, reasoning tokens) are optional. */
export type OpenAIUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
};

export function openaiCompletion(opts: {
  content?: string | null;
  toolCalls?: ToolCall[];
  finishReason?: string;
  model?: string;
  usage?: OpenAIUsage;
}) {
  const toolCalls = opts.toolCalls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  const usage = opts.usage ?? { prompt_tokens: 5, completion_tokens: 3 };
  return {
    id: 'chatcmpl-fake-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: opts.model ?? 'gpt-fake',
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: opts.content ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: opts.finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** chat.completion.chunk objects: role chunk, content pieces, tool-call deltas, finish chunk, usage chunk. */
export function openaiChunks(opts: {
  content?: string[];
  toolCalls?: Array<{ id: string; name: string; argumentPieces: string[] }>;
  finishReason?: string;
  model?: string;
  usage?: OpenAIUsage | null;
}) {
  const head = { id: 'chatcmpl-fake-stream', object: 'chat.completion.chunk', created: 1_700_000_000, model: opts.model ?? 'gpt-fake' };
  const chunk = (delta: object, finish: string | null = null) => ({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out: object[] = [chunk({ role: 'assistant', content: opts.toolCalls ? null : '' })];
  for (const piece of opts.content ?? []) out.push(chunk({ content: piece }));
  (opts.toolCalls ?? []).forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of call.argumentPieces) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, opts.finishReason ?? (opts.toolCalls ? 'tool_calls' : 'stop')));
  const usage = opts.usage === undefined ? { prompt_tokens: 5, completion_tokens: 3 } : opts.usage;
  if (usage) out.push({ ...head, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  return out;
}

export function openaiJson(body: unknown, status = 200, headers?: Record<string, string>): Behaviour {
  return { type: 'json', status, body, headers };
}

/** An SSE response of these chunks, then `data: [DONE]`. */
export function openaiStream(chunks: object[], extra: Partial<Extract<Behaviour, { type: 'sse' }>> = {}): Behaviour {
  return { type: 'sse', ...extra, events: [...chunks.map((data) => ({ data })), { data: '[DONE]' }] };
}

export function openaiError(status: number, message: string, headers?: Record<string, string>): Behaviour {
  return openaiJson({ error: { message, type: 'server_error', param: null, code: null } }, status, headers);
}

function lastUserText(body: any): string {
  const user = [...(body?.messages ?? [])].reverse().find((m: any) => m.role === 'user');
  if (typeof user?.content === 'string') return user.content;
  return (user?.content ?? [])
    .filter((p: any) => p.type === 'text')
    .map((p: any) => p.text)
    .join('\n');
}

/** The fake's embedding of input `index` (0.5, 0.25, ... cut to `dimensions`, shifted by the index): known to tests. */
export function fakeEmbedding(index: number, dimensions = 8): number[] {
  return Array.from({ length: dimensions }, (_, i) => (i + 1 + index) / 16);
}

function embeddings(req: RecordedRequest): Behaviour {
  const inputs: unknown[] =
    typeof req.body?.input === 'string' || typeof req.body?.input?.[0] === 'number' ? [req.body.input] : req.body?.input;
  const dimensions = req.body?.dimensions ?? 8;
  return openaiJson({
    object: 'list',
    data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(index, dimensions) })),
    model: req.body?.model ?? 'embed-fake',
    usage: { prompt_tokens: 3 * inputs.length, total_tokens: 3 * inputs.length },
  });
}

function echo(req: RecordedRequest): Behaviour {
  if (req.method === 'POST' && req.path === '/v1/embeddings') return embeddings(req);
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return openaiError(404, `No route ${req.method} ${req.path}`);
  const text = lastUserText(req.body);
  const model = req.body?.model ?? 'gpt-fake';
  const usage = { prompt_tokens: 10, completion_tokens: text.split(/\s+/).filter(Boolean).length };
  if (!req.body?.stream) return openaiJson(openaiCompletion({ content: text, model, usage }));
  const content = text.split(/(?<=\S)(?=\s)/).filter(Boolean);
  return openaiStream(openaiChunks({ content, model, usage: req.body?.stream_options?.include_usage ? usage : null }));
}

export async function startFakeOpenAIUpstream(): Promise<FakeUpstream> {
  const fake = await startFakeUpstream(echo);
  return { ...fake, url: `${fake.url}/v1` };
}

export const start = startFakeOpenAIUpstream;
