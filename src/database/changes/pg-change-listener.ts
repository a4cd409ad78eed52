import { Client } from 'pg';

import { CHANGE_CHANNEL } from './change';

export interface ListenerHandlers {
  onPayload(payload: string): void;
  /** Called once the listener is (re)connected after a gap in which notifications may have been lost. */
  onFlush(): void;
  onError(message: string): void;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;
/** A connection that died without an error event (half-open TCP) is found by `probe()`, run this often (ChangeNotifier). */
export const PROBE_INTERVAL_MS = 10_000;

/**
 * LISTEN on a dedicated PostgreSQL connection, outside the pool: a pooled connection goes back to
 * the pool (and through pgbouncer in transaction mode, to other clients), so it cannot hold a
 * LISTEN. Reconnects with backoff for as long as it runs; after every reconnection the caches are
 * flushed, since notifications sent while it was away are gone.
 */
export class PgChangeListener {
  private client: Client | null = null;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly handlers: ListenerHandlers,
  ) {}

  /** Resolves once the first LISTEN is in place (or failed: then it keeps retrying in the background). */
  async start(): Promise<void> {
    await this.connect(false);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(afterGap: boolean): Promise<void> {
    const client = new Client({ connectionString: this.url, application_name: 'parley-listener', keepAlive: true });
    client.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL && message.payload !== undefined) this.handlers.onPayload(message.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.lost(client, err as Error, true);
      return;
    }
    if (this.stopped) return void client.end().catch(() => undefined);
    this.client = client;
    this.retryMs = RETRY_MIN_MS;
    // Listening again: whatever was committed while we were not is only in the database now.
    if (afterGap) this.handlers.onFlush();
  }

  private lost(client: Client, err: Error, neverConnected = false): void {
    if (this.stopped) return;
    if (!neverConnected && this.client !== client) return; // an old connection's late event
    this.client = null;
    client.removeAllListeners('notification');
    this.handlers.onError(
      `Change listener ${neverConnected ? 'could not connect' : 'lost its connection'} (${err.message}); retrying in ${this.retryMs} ms`,
    );
    // Until it is back, cached entries may miss changes: drop them now, and again once listening.
    this.handlers.onFlush();
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect(true);
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  async probe(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      await client.query('SELECT 1');
    } catch (err) {
      this.lost(client, err as Error);
    }
  }
}
