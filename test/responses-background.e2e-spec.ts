import OpenAI from 'openai';

import { ResponseEventRetention } from '../src/responses/response-event-retention';
import { FakeUpstream, openaiChunks, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, listen, sleep } from './support/invoke-factories';
import { expectResponseResource, expectStreamingEvents } from './support/open-responses-schema';
import { createTestApp, TestApp } from './support/test-app';

type Event = { type: string; sequence_number: number; response?: { status: string; output_text?: string } };

/**
 * Background responses, cancel and resumable streams on one instance (PGlite or PostgreSQL), driven
 * by the official SDK (docs/openai-conversations.md, "Background responses and resumable streams").
 * The multi-instance cases (takeover, cancel across instances, 200 jobs) are in
 * responses-cluster.serial.e2e-spec.ts.
 */
describe('background responses, cancel and resumable streams', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let fake: FakeUpstream;

  const collect = async (stream: AsyncIterable<unknown>) => {
    const events: Event[] = [];
    for await (const event of stream) events.push(event as Event);
    return events;
  };
  const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
      await sleep(25);
    }
  };
  const slow = (pieces: number, delayMs: number) =>
    openaiStream(openaiChunks({ content: Array.from({ length: pieces }, (_, i) => `w${i} `) }), { delayMs });
  const items = async (conversation: string) => (await openai.conversations.items.list(conversation, { order: 'asc' })).data;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, RESPONSES_EVENT_FLUSH_MS: '20' });
    const base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'up', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('stores a streamed response and replays it after starting_after, each event once and in order', async () => {
    const live = await collect(await openai.responses.create({ model: 'up/gpt-x', input: 'one two three four', stream: true }));
    expect(live.map((e) => e.sequence_number)).toEqual(live.map((_, i) => i));
    expect(live.at(-1)!.type).toBe('response.completed');
    const id = (live[0].response as unknown as { id: string }).id;
    const resumed = await collect(await openai.responses.retrieve(id, { stream: true, starting_after: 3 }));
    expect(resumed).toEqual(live.slice(4));
    expect((await openai.responses.retrieve(id)).status).toBe('completed');
  });

  it('background: answered queued at once, runs to completed; polling with retrieve; the conversation holds the turn once', async () => {
    const conversation = await openai.conversations.create({});
    const created = await openai.responses.create({
      model: 'up/gpt-x',
      input: 'hello there',
      background: true,
      conversation: conversation.id,
    });
    expect(created.status).toBe('queued');
    expect(created.background).toBe(true);
    expectResponseResource(created);
    const done = await waitFor(
      () => openai.responses.retrieve(created.id),
      (r) => r.status !== 'queued' && r.status !== 'in_progress',
    );
    expect(done).toMatchObject({ status: 'completed', output_text: 'hello there' });
    expect((await items(conversation.id)).map((item) => (item as { role: string }).role)).toEqual(['user', 'assistant']);
    // The whole stream is there too, from response.created (queued) to response.completed.
    const events = await collect(await openai.responses.retrieve(created.id, { stream: true }));
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(['response.created', 'response.queued', 'response.in_progress']);
    expectStreamingEvents(events);
    expectResponseResource(done);
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  });

  it('background with an Idempotency-Key: a retry answers the same response (JSON and streamed); the provider is called once, the conversation holds one turn', async () => {
    const conversation = await openai.conversations.create({});
    const before = fake.requests.length;
    const key = `bg-${Date.now()}-${Math.random()}`;
    const body = { model: 'up/gpt-x', input: 'only once', background: true, conversation: conversation.id };
    const first = await openai.responses.create(body, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe('queued');
    const { data: again, response } = await openai.responses.create(body, { headers: { 'Idempotency-Key': key } }).withResponse();
    expect(again.id).toBe(first.id);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    await waitFor(
      () => openai.responses.retrieve(first.id),
      (r) => r.status === 'completed',
    );
    const late = await openai.responses.create(body, { headers: { 'Idempotency-Key': key } });
    expect(late).toMatchObject({ id: first.id, status: 'completed', output_text: 'only once' });
    // Streamed: the retry follows the stored events from the start.
    const streamKey = `${key}-stream`;
    const streamed = await collect(await openai.responses.create({ ...body, stream: true }, { headers: { 'Idempotency-Key': streamKey } }));
    const replayed = await collect(await openai.responses.create({ ...body, stream: true }, { headers: { 'Idempotency-Key': streamKey } }));
    expect(replayed).toEqual(streamed);
    expect(fake.requests.length - before).toBe(2);
    expect((await items(conversation.id)).map((item) => (item as { role: string }).role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const rows = await t.dataSource.query('SELECT count(*)::int AS n FROM responses WHERE project_id = $1 AND conversation_id = $2', [
      p.projectId,
      conversation.id,
    ]);
    expect(rows[0].n).toBe(2);
    // Another body with the same key is refused, in OpenAI's shape.
    await expect(
      openai.responses.create({ ...body, input: 'something else' }, { headers: { 'Idempotency-Key': key } }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it('background + stream: the POST follows the stored events; a reader that resumes mid-way gets the rest exactly once', async () => {
    fake.setNext(slow(8, 60));
    const stream = await openai.responses.create({ model: 'up/gpt-x', input: 'go', background: true, stream: true });
    const first: Event[] = [];
    for await (const event of stream) {
      first.push(event as Event);
      if (first.length === 6) break; // the client drops
    }
    const id = (first[0].response as unknown as { id: string }).id;
    const rest = await collect(await openai.responses.retrieve(id, { stream: true, starting_after: first.at(-1)!.sequence_number }));
    const all = [...first, ...rest];
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    expect(all.at(-1)!.type).toBe('response.completed');
    expect((await openai.responses.retrieve(id)).output_text).toBe('w0 w1 w2 w3 w4 w5 w6 w7 ');
  });

  it('cancel: the upstream call is aborted within 1 s, status cancelled, the conversation unchanged; cancelling again answers the same', async () => {
    const conversation = await openai.conversations.create({});
    const before = fake.requests.length;
    fake.setNext(slow(200, 100));
    const created = await openai.responses.create({
      model: 'up/gpt-x',
      input: 'long one',
      background: true,
      conversation: conversation.id,
    });
    await fake.waitForRequests(before + 1, 10_000);
    const upstream = fake.requests[before];
    await waitFor(
      () => openai.responses.retrieve(created.id),
      (r) => r.status === 'in_progress',
    );
    await sleep(300);
    const cancelledAt = Date.now();
    const cancelled = await openai.responses.cancel(created.id);
    expect(cancelled.status).toBe('cancelled');
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    const events = await collect(await openai.responses.retrieve(created.id, { stream: true }));
    expect(events.at(-1)!.type).toBe('response.cancelled');
    expectStreamingEvents(events.slice(0, -1)); // response.cancelled is Parley's own (docs/openai-conversations.md)
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect((await openai.responses.retrieve(created.id)).status).toBe('cancelled');
    expect((await openai.responses.cancel(created.id)).status).toBe('cancelled');
    expect(await items(conversation.id)).toEqual([]);
  });

  it('cancel of a finished background response answers it unchanged; of a synchronous one 400; of an unknown one 404', async () => {
    const created = await openai.responses.create({ model: 'up/gpt-x', input: 'quick', background: true });
    await waitFor(
      () => openai.responses.retrieve(created.id),
      (r) => r.status === 'completed',
    );
    const again = await openai.responses.cancel(created.id);
    expect(again.status).toBe('completed');
    expect(again.output_text).toBe('quick');
    const sync = await openai.responses.create({ model: 'up/gpt-x', input: 'sync' });
    await expect(openai.responses.cancel(sync.id)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Cannot cancel a synchronous response'),
    });
    await expect(openai.responses.cancel('resp_0123456789abcdef0123456789abcdef')).rejects.toMatchObject({ status: 404 });
  });

  it('refuses what it cannot honour with a 400 naming the parameter', async () => {
    const send = (path: string) => t.http().get(path).set('Authorization', `Bearer ${p.key}`);
    const sync = await openai.responses.create({ model: 'up/gpt-x', input: 'sync' });
    expect((await send(`/v1/responses/${sync.id}?stream=true`)).body.error).toMatchObject({ param: 'stream' });
    expect((await send(`/v1/responses/${sync.id}?stream=true&starting_after=x`)).body.error).toMatchObject({ param: 'starting_after' });
    expect((await send(`/v1/responses/${sync.id}?stream=maybe`)).status).toBe(400);
    const noStore = await t
      .http()
      .post('/v1/responses')
      .set('Authorization', `Bearer ${p.key}`)
      .send({ model: 'up/gpt-x', input: 'x', background: true, store: false });
    expect(noStore.status).toBe(400);
    expect(noStore.body.error.param).toBe('background');
  });

  it('retention: events of finished responses are pruned, the response stays retrievable', async () => {
    const created = await openai.responses.create({ model: 'up/gpt-x', input: 'keep me', background: true });
    await waitFor(
      () => openai.responses.retrieve(created.id),
      (r) => r.status === 'completed',
    );
    const pruned = await t.app.get(ResponseEventRetention).prune(Date.now() + 2 * 86_400_000);
    expect(pruned).toBeGreaterThan(0);
    expect((await openai.responses.retrieve(created.id)).output_text).toBe('keep me');
    const res = await t.http().get(`/v1/responses/${created.id}?stream=true`).set('Authorization', `Bearer ${p.key}`);
    expect(res.status).toBe(400);
  });
});
