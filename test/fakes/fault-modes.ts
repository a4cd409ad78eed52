/**
 * Upstream faults as real providers produce them, for the fake OpenAI-format and Anthropic-format
 * upstreams (fake-openai-upstream.ts, fake-anthropic-upstream.ts): queue one with
 * `fake.setNext(faultBehaviour('openai', 'stall'))`; it picks the streamed or the plain variant from
 * the request's `stream` flag. `refused` is a base URL with nothing listening (`refusedUrl()`).
 *
 *   before content (a router may still fail over): server_error, rate_limit, refused, hang, stall,
 *     malformed_first, error_event (after message_start / the role chunk: after Parley's response.created)
 *   after the first content token (streams only; the caller has seen content): cut, malformed_after, error_after
 *
 * On a plain (non-streamed) call there is no "after content": `stall` sends headers and no body,
 * `cut` half a body then drops the socket, `malformed_first` a 200 body that is not JSON.
 * Parley has no upstream that speaks the Responses wire format, so "an error event after
 * response.created" is exercised as the upstream's error event before any content, which Parley
 * receives after it has sent response.created to a /v1/responses caller.
 */
import net from 'node:net';

import { anthropicError, anthropicEvents } from './fake-anthropic-upstream';
import { openaiChunks, openaiError } from './fake-openai-upstream';
import type { Behaviour, SseEvent } from './fake-upstream';

export const FAULTS = [
  'server_error',
  'rate_limit',
  'refused',
  'hang',
  'stall',
  'malformed_first',
  'error_event',
  'cut',
  'malformed_after',
  'error_after',
] as const;
export type Fault = (typeof FAULTS)[number];
export type WireFormat = 'openai' | 'anthropic';

/** The faults that exist on a streamed call, or on a plain one (no error events, no "after content"). */
export function faultsFor(stream: boolean): Fault[] {
  return stream ? [...FAULTS] : FAULTS.filter((f) => !['error_event', 'malformed_after', 'error_after'].includes(f));
}

/** Whether the caller has already seen content when the fault strikes (then no failover is possible). */
export function afterContent(fault: Fault, stream: boolean): boolean {
  return stream && (fault === 'cut' || fault === 'malformed_after' || fault === 'error_after');
}

/** The text the faulty target sends before it fails (streams, after-content faults). */
export const FIRST_TOKEN = 'Hel';
/** The seconds a 429 asks the caller to wait. */
export const RETRY_AFTER_S = '7';

const MALFORMED = '{"choices": [{"delta": {"content": "x"'; // cut JSON
const PLAIN_HALF = '{"id": "chatcmpl-half", "object": "chat.completion", "choi';

function openaiFrames(fault: Fault): { events: SseEvent[]; then: 'end' | 'hold' | 'drop' } {
  // role chunk, "Hel", "lo", finish chunk
  const all: SseEvent[] = openaiChunks({ content: [FIRST_TOKEN, 'lo'], usage: null }).map((data) => ({ data }));
  const [role, first] = all;
  const errorEvent = { data: { error: { message: 'The server had an error', type: 'server_error', code: null } } };
  switch (fault) {
    case 'stall':
      return { events: [role], then: 'hold' };
    case 'malformed_first':
      return { events: [role, { data: MALFORMED }, ...all.slice(1), { data: '[DONE]' }], then: 'end' };
    case 'error_event':
      return { events: [role, errorEvent], then: 'end' };
    case 'cut':
      return { events: [role, first], then: 'drop' };
    case 'malformed_after':
      return { events: [role, first, { data: MALFORMED }, ...all.slice(2), { data: '[DONE]' }], then: 'end' };
    case 'error_after':
      return { events: [role, first, errorEvent], then: 'end' };
    default:
      throw new Error(`${fault} is not a stream fault`);
  }
}

function anthropicFrames(fault: Fault): { events: SseEvent[]; then: 'end' | 'hold' | 'drop' } {
  // message_start, content_block_start, ping, delta "Hel", delta "lo", content_block_stop, message_delta, message_stop
  const all: SseEvent[] = anthropicEvents({ text: [FIRST_TOKEN, 'lo'], model: 'claude-fault' });
  const start = all.slice(0, 1);
  const upToFirst = all.slice(0, 4);
  const errorEvent = { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
  const malformed = { event: 'content_block_delta', data: MALFORMED };
  switch (fault) {
    case 'stall':
      return { events: start, then: 'hold' };
    case 'malformed_first':
      return { events: [...start, malformed, ...all.slice(1)], then: 'end' };
    case 'error_event':
      return { events: [...start, errorEvent], then: 'end' };
    case 'cut':
      return { events: upToFirst, then: 'drop' };
    case 'malformed_after':
      return { events: [...upToFirst, malformed, ...all.slice(4)], then: 'end' };
    case 'error_after':
      return { events: [...upToFirst, errorEvent], then: 'end' };
    default:
      throw new Error(`${fault} is not a stream fault`);
  }
}

function errorAnswer(format: WireFormat, status: number, headers?: Record<string, string>): Behaviour {
  if (format === 'anthropic') {
    return status === 429
      ? anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', headers)
      : anthropicError(500, 'api_error', 'Internal server error', headers);
  }
  return status === 429
    ? openaiError(429, 'Rate limit reached for requests', headers)
    : openaiError(500, 'The server had an error', headers);
}

/** The fault's answer to one request (any but `refused`, which needs no server). */
export function faultBehaviour(format: WireFormat, fault: Fault): Behaviour {
  switch (fault) {
    case 'server_error':
      return errorAnswer(format, 500);
    case 'rate_limit':
      return errorAnswer(format, 429, { 'retry-after': RETRY_AFTER_S });
    case 'hang':
      return { type: 'hang' };
    case 'refused':
      throw new Error('refused: point the provider at refusedUrl()');
    default:
      return {
        type: 'per-request',
        pick: (req) => {
          if (!req.body?.stream) {
            if (fault === 'stall') return { type: 'raw', then: 'hold' };
            if (fault === 'cut') return { type: 'raw', body: PLAIN_HALF, then: 'drop' };
            if (fault === 'malformed_first') return { type: 'raw', body: PLAIN_HALF, then: 'end' };
            // Visible in the attempt's error, should a plain request meet a stream-only fault.
            return { type: 'text', status: 500, body: `fake: ${fault} needs a streamed request` };
          }
          const { events, then } = format === 'openai' ? openaiFrames(fault) : anthropicFrames(fault);
          return { type: 'sse', events, keepOpen: then === 'hold', dropConnection: then === 'drop' };
        },
      };
  }
}

/** A loopback base URL on which a connection is refused: a port just freed, so nothing listens on it. */
export async function refusedUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
