/**
 * The one streaming loop of the HTTP adapters: open the call (retries happen there, before any
 * byte of a 2xx body), parse its server-sent events with eventsource-parser and hand each event
 * to the wire format's translator. The idle timeout between events is undici's body timeout.
 */
import { StringDecoder } from 'node:string_decoder';

import { createParser, EventSourceMessage } from 'eventsource-parser';

import type { ChatCompletionChunk, ProviderCallOptions } from './provider.types';
import { ProviderError } from './provider.types';
import { ChunkStream } from './provider-stream';
import type { TokenCounts } from './token-usage';
import { toProviderError } from './upstream-errors';
import { discard, UpstreamCall, UpstreamHttp } from './upstream-http';

/** An SSE line longer than this (or an event never terminated) ends the stream as an upstream error. */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** Turns one wire format's events into chat.completion.chunk objects. */
export interface EventTranslator {
  /** Chunks for one event; throws a ProviderError for an error event. */
  translate(event: EventSourceMessage): ChatCompletionChunk[];
  /** True once the upstream said why the answer ended (finish_reason, stop_reason). */
  readonly finished: boolean;
  /** The usage reported so far. */
  readonly tokens: TokenCounts | undefined;
  /** What is missing when the stream ends unfinished, e.g. "a finish_reason". */
  readonly endMarker: string;
}

export async function* sseChunks(
  http: UpstreamHttp,
  makeCall: () => UpstreamCall,
  opts: ProviderCallOptions,
  translator: EventTranslator,
  sink: ChunkStream,
): AsyncGenerator<ChatCompletionChunk> {
  // Built here, so a bad base URL fails the first next() like any upstream failure.
  const call = makeCall();
  const { provider } = call;
  const timeoutMs = Math.max(1, Math.round(opts.timeoutMs ?? http.settings.timeoutMs));
  const res = await http.open(call, opts);
  const body = res.body;
  const events: EventSourceMessage[] = [];
  let parseFailure: Error | undefined;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent: (event) => void events.push(event),
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') parseFailure = err;
    },
  });
  const decoder = new StringDecoder('utf8');
  try {
    for await (const bytes of body) {
      parser.feed(decoder.write(bytes as Buffer));
      if (parseFailure)
        throw new ProviderError('upstream', `${provider} upstream sent an event longer than ${MAX_EVENT_CHARS} characters`, { provider });
      for (let i = 0; i < events.length; i += 1) {
        const chunks = translator.translate(events[i]);
        sink.tokens = translator.tokens;
        for (const chunk of chunks) {
          // Once the caller has aborted, events already buffered are not handed out.
          if (opts.signal?.aborted) throw new ProviderError('aborted', `${provider} request cancelled by the caller`, { provider });
          yield chunk;
        }
      }
      events.length = 0;
    }
  } catch (err) {
    throw toProviderError(err, provider, opts.signal, timeoutMs, true);
  } finally {
    // A consumer that stops early (break, abort) closes the upstream request.
    discard(body);
  }
  if (opts.signal?.aborted) throw new ProviderError('aborted', `${provider} request cancelled by the caller`, { provider });
  if (!translator.finished) {
    throw new ProviderError('upstream', `${provider} upstream ended the stream without ${translator.endMarker}`, { provider });
  }
}
