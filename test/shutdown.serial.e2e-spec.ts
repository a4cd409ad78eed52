import * as http from 'node:http';
import * as net from 'node:net';
import { spawnServer, SpawnedServer } from './support/spawn-server';

/**
 * SIGTERM on the built server with clients connected (issue 13 item 6): idle keep-alive sockets
 * and sockets that sent nothing are closed at once, a request in flight still gets its answer,
 * and the process exits promptly instead of waiting for Node's headersTimeout.
 */
describe('shutdown with keep-alive clients (built server)', () => {
  let server: SpawnedServer;
  afterEach(() => server?.child.kill('SIGKILL'));

  const get = (url: string, agent: http.Agent) =>
    new Promise<number>((resolve, reject) => http.get(url, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode!))).on('error', reject));

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
      const req = http.request(`${server.url}/v2/threads`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
      });
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
});
