import http from 'node:http';
import type { AddressInfo } from 'node:net';

import OpenAI from 'openai';

import { newId } from '../src/common/ids';
import { createProject, TestProject } from './support/factories';
import { INVOKE_APP_ENV, listen, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Webhook delivery is fair across projects (docs/openai-conversations.md, "Webhooks"): one
 * project's receiver that never answers, with 100 deliveries due, delays no other project's
 * delivery; a delivery the outbound policy refuses fails at once instead of being retried for hours.
 */
describe('webhook delivery across projects', () => {
  let t: TestApp;
  let base: string;
  let hanging: http.Server;
  let fast: http.Server;
  const hangingSockets = new Set<import('node:net').Socket>();
  let hangingHits = 0;
  const arrivals: Array<{ at: number; body: string }> = [];

  const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const hookFor = async (p: TestProject, url: string): Promise<string> =>
    (await t.http().post('/v2/webhooks').set('X-API-Key', p.key).send({ url }).expect(200)).body.id;
  const deliveries = (projectId: string) =>
    t.dataSource.query('SELECT state, attempts, last_error FROM webhook_deliveries WHERE project_id = $1 ORDER BY created_at', [
      projectId,
    ]) as Promise<Array<{ state: string; attempts: number; last_error: string | null }>>;

  beforeAll(async () => {
    hanging = http.createServer(() => {
      hangingHits++; // read, never answered
    });
    hanging.on('connection', (socket) => hangingSockets.add(socket));
    fast = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part) => parts.push(part));
      req.on('end', () => {
        arrivals.push({ at: Date.now(), body: Buffer.concat(parts).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    for (const server of [hanging, fast]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
    for (const socket of hangingSockets) socket.destroy();
    for (const server of [hanging, fast]) await new Promise((resolve) => server.close(resolve));
  });

  it("another project's delivery arrives within 2 s while one project's receiver hangs with 100 deliveries due", async () => {
    const stuck = await createProject(t);
    const webhookId = await hookFor(stuck, urlOf(hanging));
    // 100 deliveries due for the hanging receiver (as 100 background responses' ends would leave them).
    for (let i = 0; i < 100; i++) {
      const id = newId();
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (project_id, id, webhook_id, type, payload, next_attempt_at, created_at) VALUES ($1, $2, $3, 'response.completed', $4, now(), now())`,
        [stuck.projectId, id, webhookId, JSON.stringify({ id: `evt_${id}`, type: 'response.completed', data: { id: `resp_${i}` } })],
      );
    }
    for (let i = 0; hangingHits === 0 && i < 200; i++) await sleep(25);
    expect(hangingHits).toBeGreaterThan(0);

    const other = await createProject(t);
    await hookFor(other, urlOf(fast));
    const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: other.key, maxRetries: 0 });
    const created = await openai.responses.create({ model: 'local/echo', input: 'deliver me', background: true });
    let completedAt = 0;
    for (let i = 0; i < 400 && !completedAt; i++) {
      if ((await openai.responses.retrieve(created.id)).status === 'completed') completedAt = Date.now();
      else await sleep(10);
    }
    expect(completedAt).toBeGreaterThan(0);
    for (let i = 0; i < 300 && !arrivals.some((a) => a.body.includes(created.id)); i++) await sleep(10);
    const arrival = arrivals.find((a) => a.body.includes(created.id));
    expect(arrival).toBeDefined();
    expect(arrival!.at - completedAt).toBeLessThan(2_000);
    // The hanging project never has more than two deliveries in flight at once on this instance.
    expect(hangingHits).toBeLessThanOrEqual(2);
    expect((await deliveries(stuck.projectId)).filter((d) => d.attempts > 0).length).toBeLessThanOrEqual(2);
  });

  it('a delivery the outbound policy refuses fails at once, with no retry', async () => {
    const p = await createProject(t);
    const webhookId = await hookFor(p, urlOf(fast));
    // The operator narrowed the policy after the webhook was made: its address is now refused (never connected to).
    await t.dataSource.query(`UPDATE webhooks SET url = 'http://192.0.2.1/hooks' WHERE project_id = $1 AND id = $2`, [
      p.projectId,
      webhookId,
    ]);
    const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await openai.responses.create({ model: 'local/echo', input: 'refused', background: true });
    let rows = await deliveries(p.projectId);
    for (let i = 0; i < 300 && !(rows.length === 1 && rows[0].state !== 'pending'); i++) {
      await sleep(20);
      rows = await deliveries(p.projectId);
    }
    expect(rows).toEqual([{ state: 'failed', attempts: 1, last_error: expect.stringMatching(/192\.0\.2\.1/) }]);
  });
});
