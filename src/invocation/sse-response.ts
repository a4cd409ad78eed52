import type { Response } from 'express';

/**
 * A `text/event-stream` answer in the chat-completion streaming format: one `data: <json>` event
 * per chunk and `data: [DONE]` at the end, as the official `openai` SDK's stream reader expects.
 */
export class SseResponse {
  constructor(private readonly res: Response) {}

  /** Sends the status and headers (those set on the response already included) at once, before the first chunk. */
  open(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache, no-transform');
    this.res.setHeader('Connection', 'keep-alive');
    // Reverse proxies (nginx) must pass events through as they come.
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
  }

  /** Writes one event; waits for the socket to drain when the client reads slower than we write. */
  async send(data: unknown): Promise<void> {
    if (this.closed) return;
    this.batch();
    if (!this.res.write(`data: ${JSON.stringify(data)}\n\n`)) {
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
  }

  done(): void {
    if (this.closed) return;
    this.res.end('data: [DONE]\n\n');
  }

  /** An error after the headers went out: one `{error}` event, then the stream closes. The surface chooses the error's shape. */
  fail(error: Record<string, unknown>): void {
    if (this.closed) return;
    this.res.end(`data: ${JSON.stringify({ error })}\n\n`);
  }

  /**
   * Events written in the same turn of the event loop (an upstream read often carries several) go
   * out in one socket write instead of one each: the response is corked until the callbacks of
   * this turn are done. Nothing waits longer than that, the first event included.
   */
  private batch(): void {
    if (this.corked) return;
    this.corked = true;
    this.res.cork();
    process.nextTick(() => {
      this.corked = false;
      this.res.uncork();
    });
  }

  private corked = false;

  get closed(): boolean {
    return this.res.writableEnded || this.res.destroyed;
  }
}
