import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openaiChunks, openaiStream } from './fakes/fake-openai-upstream';
import { startFakeUpstream } from './fakes/fake-upstream';
import { freshDatabase } from './support/fresh-database';
import { SpawnedServer, spawnServer } from './support/spawn-server';

/**
 * SIGTERM on the built server with clients connected (issue 13 item 6): idle keep-alive sockets
 * and sockets that sent nothing are closed at once, a request in flight still gets its answer,
 * and the process exits promptly instead of waiting for Node's headersTimeout.
 */
describe('shutdown with keep-alive clients (built server)', () => {
  let server: SpawnedServer;
  afterEach(() => server?.child.kill('SIGKILL'));

  const get = (url: string, agent: http.Agent) =>
    new Promise<number>((resolve, reject) =>
      http.get(url, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode!))).on('error', reject),
    );

  it('exits within 2 s, closing idle sockets and finishing the request in flight', async () => {
    server = await spawnServer();
    const key = /export PARLEY_KEY=(\S+)/.exec(server.output())![1];
    const { port } = new URL(server.url);

    const agent = new http.Agent({ keepAlive: true });
    expect(await get(`${server.url}/health`, agent)).toBe(200); // leaves an idle keep-alive socket
    const silent = net.connect(Number(port), '127.0.0.1'); // connected, never sends a byte
    const silentClosed = new Promise<void>((resolve) => silent.on('close', () => resolve()).on('error', () => undefined));

    // A request in flight: headers sent, body still coming when SIGTERM arrives.
    const body = JSON.stringify({ metadata: { during: 'shutdown' } });
    const inFlight = new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
      const req = http.request(
        `${server.url}/v2/threads`,
        { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res
            .on('data', (c) => (text += c))
            .on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => req.end(body.slice(5)), 500);
    });
    await new Promise((r) => setTimeout(r, 200));

    const start = Date.now();
    server.child.kill('SIGTERM');
    const answer = await inFlight;
    await silentClosed;
    const code = await server.exited;
    const elapsed = Date.now() - start;
    agent.destroy();

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).metadata).toEqual({ during: 'shutdown' });
    expect(answer.connection).toBe('close');
    expect(code).toBe(0);
    expect(elapsed).toBeLessThan(2000);
  });

  it('a second SIGINT cuts the streams still running at once, and their request logs are kept', async () => {
    const fake = await startFakeUpstream(() =>
      openaiStream(openaiChunks({ content: Array.from({ length: 100 }, (_, i) => `w${i} `), usage: null }), { delayMs: 100 }),
    );
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-shutdown-'));
    const fresh = process.env.DATABASE_URL ? await freshDatabase() : null;
    const env = {
      ...(fresh ? (fresh.env as Record<string, string>) : { DATA_DIR: dataDir }),
      PROVIDER_ALLOWED_HOSTS: '127.0.0.1',
      PARLEY_SECRET_KEY: 'shutdown-test-secret-key-0123456789abcdef',
    };
    try {
      server = await spawnServer(env);
      const key = /export PARLEY_KEY=(\S+)/.exec(server.output())![1];
      const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
      const credential = await fetch(`${server.url}/v2/provider-credentials`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'up', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' }),
      });
      expect(credential.status).toBe(200);
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'up/gpt-x', stream: true, messages: [{ role: 'user', content: 'go on' }] }),
      });
      expect(res.status).toBe(200);
      const logId = res.headers.get('x-parley-log-id');
      const reader = res.body!.getReader();
      let text = '';
      while ((text.match(/"content":"w/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);

      const start = Date.now();
      server.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 200));
      server.child.kill('SIGINT');
      for (
        let chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
        !chunk.done;
        chunk = await reader.read().catch(() => ({ done: true, value: undefined }))
      ) {
        text += new TextDecoder().decode(chunk.value);
      }
      expect(await server.exited).toBe(0);
      expect(Date.now() - start).toBeLessThan(5_000);
      expect(text).not.toContain('[DONE]');

      server = await spawnServer(env);
      const log = (await (await fetch(`${server.url}/v2/logs/${logId}`, { headers })).json()) as Record<string, unknown>;
      // As when a client leaves mid-stream (invoke-stream.e2e-spec.ts): 499, its first token's time, usage marked partial.
      expect(log).toMatchObject({
        id: logId,
        status: 499,
        stream: true,
        error: expect.stringMatching(/cancel/),
        usage: expect.objectContaining({ partial: true }),
      });
      expect(log.timeToFirstTokenMs).toEqual(expect.any(Number));
    } finally {
      server?.child.kill('SIGKILL');
      await server?.exited;
      await fake.close();
      await fresh?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
