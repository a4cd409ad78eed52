import type { Response } from 'express';

import { SseResponse } from '../invocation/sse-response';
import { type AnthropicEvent, PING } from './messages.stream';

/** How long a stream may stay silent before a `ping` keeps proxies (and the SDK) from taking it for dead. */
export const PING_INTERVAL_MS = 15_000;

const frame = ({ event, data }: AnthropicEvent) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A `text/event-stream` answer in Anthropic's streaming format: named events (`event: <type>` and
 * `data: <json>`, which the SDK needs: it skips unnamed ones), no `[DONE]`, and `event: error` for
 * a failure after the headers. The headers are the other surfaces' (SseResponse.open). The events
 * of one chunk go out in one socket write; a ping is sent after PING_INTERVAL_MS of silence (a
 * timer of this answer's own, as the house rules have it).
 */
export class AnthropicSse {
  private readonly headers: SseResponse;
  private lastWrite = Date.now();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly res: Response) {
    this.headers = new SseResponse(res);
  }

  open(): void {
    this.headers.open();
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastWrite >= PING_INTERVAL_MS && !this.closed) this.write([PING]);
    }, PING_INTERVAL_MS / 3);
    this.heartbeat.unref();
    this.res.once('close', () => this.stopHeartbeat());
  }

  /** Writes events; waits for the socket to drain when the client reads slower than we write. */
  async send(events: AnthropicEvent[]): Promise<void> {
    if (events.length === 0 || this.closed || this.write(events)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }

  /** The stream's clean end (after message_stop). */
  end(): void {
    this.stopHeartbeat();
    if (!this.closed) this.res.end();
  }

  /** A failure after the headers: one `error` event (never message_stop), then the stream closes. */
  fail(data: object): void {
    this.stopHeartbeat();
    if (!this.closed) this.res.end(frame({ event: 'error', data }));
  }

  get closed(): boolean {
    return this.headers.closed;
  }

  private write(events: AnthropicEvent[]): boolean {
    this.lastWrite = Date.now();
    return this.res.write(events.map(frame).join(''));
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
