import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import OpenAI from 'openai';

import { FakeUpstream, openaiChunks, openaiError, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, listen, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  answered: number;
}

/**
 * Webhooks for background responses' final events (docs/openai-conversations.md, "Webhooks"): a
 * receiver on loopback checks each Standard Webhooks signature by the specification (node:crypto
 * here, not Parley's code), answers 500 to the first delivery and sees it retried with the same id.
 */
describe('webhooks for background responses', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let fake: FakeUpstream;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part) => parts.push(part));
      req.on('end', () => {
        const answered = received.length === 0 ? 500 : 200; // the very first delivery fails once
        received.push({ headers: req.headers, body: Buffer.concat(parts).toString('utf8'), answered });
        res.writeHead(answered).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    openai = new OpenAI({ baseURL: `${await listen(t)}/v1`, apiKey: (p = await createProject(t)).key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'up', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const api = () => ({
    post: (path: string, body: object) => t.http().post(path).set('X-API-Key', p.key).send(body),
    get: (path: string) => t.http().get(path).set('X-API-Key', p.key),
    delete: (path: string) => t.http().delete(path).set('X-API-Key', p.key),
  });
  const signatureOf = (secret: string, r: Received) =>
    `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`)
      .digest('base64')}`;

  it('delivers completed, failed and cancelled, each signed; the one answered 500 is retried with the same id', async () => {
    const hook = await api().post('/v2/webhooks', { url: receiverUrl }).expect(200);
    expect(hook.body).toMatchObject({
      object: 'webhook',
      url: receiverUrl,
      events: ['response.completed', 'response.failed', 'response.cancelled', 'response.incomplete'],
    });
    const secret: string = hook.body.secret;
    expect(secret).toMatch(/^whsec_/);
    expect((await api().get('/v2/webhooks').expect(200)).body.data).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);

    const settled = async (id: string) => {
      for (let i = 0; ['queued', 'in_progress'].includes((await openai.responses.retrieve(id)).status!) && i < 400; i++) await sleep(25);
    };
    // One at a time: the fake's scripted answers go to whichever call comes next.
    const completed = await openai.responses.create({ model: 'up/gpt-x', input: 'done soon', background: true });
    await settled(completed.id);
    fake.setNext(openaiError(400, 'no such model'));
    const failed = await openai.responses.create({ model: 'up/gpt-x', input: 'fails', background: true });
    await settled(failed.id);
    fake.setNext(openaiStream(openaiChunks({ content: Array.from({ length: 100 }, () => 'x ') }), { delayMs: 100 }));
    const cancelled = await openai.responses.create({ model: 'up/gpt-x', input: 'cancel me', background: true, stream: false });
    for (let i = 0; (await openai.responses.retrieve(cancelled.id)).status !== 'in_progress' && i < 400; i++) await sleep(25);
    await openai.responses.cancel(cancelled.id);

    const expected = new Map([
      [completed.id, 'response.completed'],
      [failed.id, 'response.failed'],
      [cancelled.id, 'response.cancelled'],
    ]);
    const delivered = () =>
      received.filter((r) => r.answered === 200).map((r) => JSON.parse(r.body) as { id: string; type: string; data: { id: string } });
    const deadline = Date.now() + 20_000;
    while (new Set(delivered().map((event) => event.data.id)).size < 3) {
      if (Date.now() > deadline) throw new Error(`not delivered: ${JSON.stringify(received.map((r) => r.body))}`);
      await sleep(50);
    }
    for (const event of delivered()) {
      expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), object: 'event', type: expected.get(event.data.id) });
    }
    for (const r of received) {
      expect(r.headers['webhook-signature']).toBe(signatureOf(secret, r));
      expect(r.headers['webhook-id']).toBe(JSON.parse(r.body).id);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    // The first delivery was answered 500, then retried (same id, same body, a fresh signature).
    const first = received[0];
    expect(first.answered).toBe(500);
    const retry = received.find((r, i) => i > 0 && r.headers['webhook-id'] === first.headers['webhook-id']);
    expect(retry).toMatchObject({ answered: 200, body: first.body });
  }, 60_000);

  it('refuses a bad URL or event with 400, deletes with 200 then 404', async () => {
    await api().post('/v2/webhooks', { url: 'ftp://x' }).expect(400);
    await api()
      .post('/v2/webhooks', { url: receiverUrl, events: ['response.created'] })
      .expect(400);
    const hook = await api()
      .post('/v2/webhooks', { url: receiverUrl, events: ['response.failed'] })
      .expect(200);
    await api().delete(`/v2/webhooks/${hook.body.id}`).expect(200);
    await api().delete(`/v2/webhooks/${hook.body.id}`).expect(404);
  });
});
