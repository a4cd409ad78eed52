import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { newId } from '../src/common/ids';
import { createProject } from './support/factories';
import { FreshDatabase, freshDatabase } from './support/fresh-database';
import { INVOKE_APP_ENV, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * A webhook send cut by the instance's shutdown is not a failed attempt of the receiver's
 * (docs/openai-conversations.md, "Webhooks"): no error is recorded, the claim is given back
 * uncounted, and the next instance sends it at once. Before, the cut send was recorded as a failed
 * attempt ("other side closed") and waited for its retry, so a receiver lost retries to restarts.
 */
describe('webhook delivery at shutdown', () => {
  let fresh: FreshDatabase;
  let hanging: http.Server;
  const sockets = new Set<import('node:net').Socket>();
  let hits = 0;
  let apps: TestApp[] = [];

  beforeAll(async () => {
    hanging = http.createServer(() => {
      hits++; // read, never answered
    });
    hanging.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    fresh = await freshDatabase({ migrated: true });
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
    await fresh?.drop();
  });

  const open = async () => {
    const app = await createTestApp({ ...(fresh.env as Record<string, string>), ...INVOKE_APP_ENV });
    apps.push(app);
    return app;
  };

  it('a send in flight when the instance stops is not counted, and the next instance sends it at once', async () => {
    const t = await open();
    const p = await createProject(t);
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hooks`;
    const webhookId = (await t.http().post('/v2/webhooks').set('X-API-Key', p.key).send({ url }).expect(200)).body.id;
    const id = newId();
    await t.dataSource.query(
      `INSERT INTO webhook_deliveries (project_id, id, webhook_id, type, payload, next_attempt_at, created_at) VALUES ($1, $2, $3, 'response.completed', $4, now(), now())`,
      [p.projectId, id, webhookId, JSON.stringify({ id: `evt_${id}`, type: 'response.completed', data: { id: 'resp_1' } })],
    );
    for (let i = 0; hits === 0 && i < 400; i++) await sleep(25);
    expect(hits).toBe(1);

    await t.close();
    apps = apps.filter((app) => app !== t);
    const row = async () =>
      (
        await after.dataSource.query('SELECT state, attempts, last_error FROM webhook_deliveries WHERE project_id = $1 AND id = $2', [
          p.projectId,
          id,
        ])
      )[0];
    const after = await open();
    // No failed attempt recorded for the cut send...
    expect(await row()).toMatchObject({ state: 'pending', last_error: null });
    // ...and its claim given back: the next instance sends it within a poll, not once the 60 s claim lapses.
    for (let i = 0; hits < 2 && i < 200; i++) await sleep(25);
    expect(hits).toBe(2);
    expect(await row()).toEqual({ state: 'pending', attempts: 1, last_error: null });
  }, 60_000);
});
