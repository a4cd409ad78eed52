import { APIError as AnthropicAPIError } from '@anthropic-ai/sdk';
import { APIError } from 'openai';

import { FaultWorld, USER_TEXT } from './fault-world';
import { invokePath, sleep } from './invoke-factories';

/**
 * One call on each surface, as its client sees it (the openai / Anthropic SDKs, fetch for the spec
 * invoke): the text it received, whether the answer ended cleanly (a 200 body, or the surface's
 * own end event: `[DONE]`, `response.completed`, `message_stop`) and the error it was given.
 */
export interface Seen {
  status: number;
  /** An answer header; undefined on a surface whose answer has none (background responses). */
  header?: (name: string) => string | null;
  text: string;
  cleanEnd: boolean;
  /** The explicit error the caller got: an error body, an SDK error, or a failure event. */
  error?: unknown;
  threadId?: string | null;
  conversationId?: string;
  /** From the request to the end of the answer (or of the events read). */
  elapsedMs?: number;
}

export type Surface = 'spec invoke' | '/v1/chat/completions' | '/v1/responses' | '/v1/messages';
export type Drive = (w: FaultWorld, slug: string, stream: boolean) => Promise<Seen>;

const user = [{ role: 'user' as const, content: USER_TEXT }];

/** The SDK's failure as Seen: its status and headers, no text. */
function failed(err: unknown): Seen {
  if (!(err instanceof APIError) && !(err instanceof AnthropicAPIError)) throw err;
  const headers = err.headers as Headers | undefined;
  return { status: err.status ?? 0, header: (name) => headers?.get(name) ?? null, text: '', cleanEnd: false, error: err };
}

async function specInvoke(w: FaultWorld, slug: string, stream: boolean): Promise<Seen> {
  const res = await fetch(`${w.base}${invokePath(w.p, slug)}`, {
    method: 'POST',
    headers: { 'X-API-Key': w.p.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: user, stream }),
  });
  const header = (name: string) => res.headers.get(name);
  const threadId = header('x-parley-thread-id');
  if (!stream || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    const ok = res.status === 200;
    return {
      status: res.status,
      header,
      text: ok ? body.choices[0].message.content : '',
      cleanEnd: ok,
      error: ok ? undefined : body,
      threadId,
    };
  }
  const frames = (await res.text())
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => frame.replace(/^data: /, ''));
  const chunks = frames.filter((f) => f !== '[DONE]').map((f) => JSON.parse(f));
  return {
    status: res.status,
    header,
    text: chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join(''),
    cleanEnd: frames.at(-1) === '[DONE]',
    error: chunks.find((c) => c.error),
    threadId,
  };
}

async function chatCompletions(w: FaultWorld, slug: string, stream: boolean): Promise<Seen> {
  try {
    if (!stream) {
      const { data, response } = await w.openai.chat.completions.create({ model: slug, messages: user }).withResponse();
      const header = (name: string) => response.headers.get(name);
      return {
        status: response.status,
        header,
        text: data.choices[0].message.content ?? '',
        cleanEnd: true,
        threadId: header('x-parley-thread-id'),
      };
    }
    const { data, response } = await w.openai.chat.completions.create({ model: slug, messages: user, stream: true }).withResponse();
    const header = (name: string) => response.headers.get(name);
    let text = '';
    let error: unknown;
    try {
      for await (const chunk of data) text += chunk.choices[0]?.delta?.content ?? '';
    } catch (err) {
      error = err;
    }
    const cleanEnd = (await w.lastRaw()).includes('data: [DONE]');
    return { status: response.status, header, text, cleanEnd, error, threadId: header('x-parley-thread-id') };
  } catch (err) {
    return failed(err);
  }
}

type ResponseEvent = { type: string; sequence_number: number; delta?: string; response?: { id: string; status: string } };

/** Text deltas, the failure events (`response.failed`, `error`) and whether `response.completed` ended it. */
function readEvents(events: ResponseEvent[]) {
  return {
    text: events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join(''),
    failure: events.find((e) => e.type === 'response.failed' || e.type === 'error'),
    completed: events.at(-1)?.type === 'response.completed',
  };
}

async function responses(w: FaultWorld, slug: string, stream: boolean): Promise<Seen> {
  const conversation = await w.openai.conversations.create({});
  const body = { prompt: { id: slug }, input: USER_TEXT, conversation: conversation.id };
  try {
    if (!stream) {
      const { data, response } = await w.openai.responses.create(body).withResponse();
      const header = (name: string) => response.headers.get(name);
      const error = data.status === 'completed' ? undefined : (data.error ?? data.status);
      return {
        status: response.status,
        header,
        text: data.output_text,
        cleanEnd: data.status === 'completed',
        error,
        conversationId: conversation.id,
      };
    }
    const { data, response } = await w.openai.responses.create({ ...body, stream: true }).withResponse();
    const events: ResponseEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of data) events.push(event as ResponseEvent);
    } catch (err) {
      thrown = err;
    }
    const { text, failure, completed } = readEvents(events);
    const cleanEnd = completed && (await w.lastRaw()).includes('"type":"response.completed"');
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      text,
      cleanEnd,
      error: thrown ?? failure,
      conversationId: conversation.id,
    };
  } catch (err) {
    return { ...failed(err), conversationId: conversation.id };
  }
}

/**
 * Background: answered `queued` at once (no routing headers: the call has not run yet). Plain, the
 * events are read with a streamed retrieve; with `stream`, the POST itself follows them. Either
 * reader drops after two events and resumes after the last one it saw, to the end. A plain
 * background call asks the upstream without streaming (no text deltas): its text is then the
 * stored response's.
 */
async function backgroundResponses(w: FaultWorld, slug: string, stream: boolean): Promise<Seen> {
  const conversation = await w.openai.conversations.create({});
  const body = { prompt: { id: slug }, input: USER_TEXT, conversation: conversation.id, background: true };
  const events: ResponseEvent[] = [];
  let id: string;
  if (stream) {
    for await (const event of await w.openai.responses.create({ ...body, stream: true })) {
      events.push(event as ResponseEvent);
      if (events.length === 2) break; // the reader drops
    }
    id = events[0].response!.id;
  } else {
    const created = await w.openai.responses.create(body);
    expect(created.status).toBe('queued');
    id = created.id;
    for await (const event of await w.openai.responses.retrieve(id, { stream: true })) {
      events.push(event as ResponseEvent);
      if (events.length === 2) break;
    }
  }
  let thrown: unknown;
  try {
    const rest = await w.openai.responses.retrieve(id, { stream: true, starting_after: events.at(-1)!.sequence_number });
    for await (const event of rest) events.push(event as ResponseEvent);
  } catch (err) {
    thrown = err;
  }
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  let final = await w.openai.responses.retrieve(id);
  for (let i = 0; i < 100 && (final.status === 'queued' || final.status === 'in_progress'); i += 1) {
    await sleep(20);
    final = await w.openai.responses.retrieve(id);
  }
  const { text, failure, completed } = readEvents(events);
  if (!stream) expect(text).toBe('');
  return {
    status: 200,
    text: stream ? text : final.output_text,
    cleanEnd: completed && final.status === 'completed',
    error: thrown ?? failure ?? (final.status === 'completed' ? undefined : (final.error ?? final.status)),
    conversationId: conversation.id,
  };
}

async function messages(w: FaultWorld, slug: string, stream: boolean): Promise<Seen> {
  const params = { model: slug, max_tokens: 100, messages: user };
  try {
    if (!stream) {
      const { data, response } = await w.anthropic.messages.create(params).withResponse();
      const header = (name: string) => response.headers.get(name);
      const text = data.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      return { status: response.status, header, text, cleanEnd: true, threadId: header('x-parley-thread-id') };
    }
    const { data, response } = await w.anthropic.messages.create({ ...params, stream: true }).withResponse();
    const header = (name: string) => response.headers.get(name);
    let text = '';
    let error: unknown;
    try {
      for await (const event of data) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      }
    } catch (err) {
      error = err;
    }
    const cleanEnd = (await w.lastRaw()).includes('event: message_stop');
    return { status: response.status, header, text, cleanEnd, error, threadId: header('x-parley-thread-id') };
  } catch (err) {
    return failed(err);
  }
}

const timed =
  (drive: Drive): Drive =>
  async (w, slug, stream) => {
    const started = Date.now();
    const seen = await drive(w, slug, stream);
    return { ...seen, elapsedMs: Date.now() - started };
  };

export const SURFACES: Record<Surface | 'background /v1/responses', Drive> = {
  'spec invoke': timed(specInvoke),
  '/v1/chat/completions': timed(chatCompletions),
  '/v1/responses': timed(responses),
  'background /v1/responses': timed(backgroundResponses),
  '/v1/messages': timed(messages),
};
