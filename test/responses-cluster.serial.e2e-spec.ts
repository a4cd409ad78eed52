import OpenAI from 'openai';
import request from 'supertest';

import { FakeUpstream, openaiChunks, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { FreshDatabase, freshDatabase, queryFresh } from './support/fresh-database';
import { addProviderCredential, sleep } from './support/invoke-factories';
import { backgroundJobsEnv, ServerProcess, startServer } from './support/server-process';
import { TestApp } from './support/test-app';

type Event = { type: string; sequence_number: number; response?: { id: string; status: string; error?: { message: string } } };

/**
 * Background responses on a loopback cluster (docs/openai-conversations.md, "Background responses
 * and resumable streams"): two instances as processes (the built server, `npm run build` first)
 * on one PostgreSQL database of their own, the fake upstream streaming slowly. PostgreSQL only:
 * PGlite is one process's embedded database, which two instances cannot share.
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

onPostgres('responses across two instances (PostgreSQL only; skipped on PGlite, which two processes cannot share)', () => {
  let fresh: FreshDatabase;
  let fake: FakeUpstream;
  let a: ServerProcess;
  let b: ServerProcess;
  let p: TestProject;
  const env = () => backgroundJobsEnv(fresh.env as Record<string, string>, 4);
  const sdk = (server: ServerProcess) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: p.key, maxRetries: 0 });
  const slow = (pieces: number, delayMs: number) =>
    openaiStream(openaiChunks({ content: Array.from({ length: pieces }, (_, i) => `w${i} `) }), { delayMs });
  const db = <T>(sql: string, params: unknown[]): Promise<T[]> => queryFresh<T>(fresh, sql, params);
  const uuidOf = (id: string) => id.slice(5).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    fresh = await freshDatabase({ migrated: true });
    a = await startServer(env());
    b = await startServer(env());
    const remote = { http: () => request(a.url) } as unknown as TestApp;
    p = await createProject(remote);
    await addProviderCredential(remote, p, { name: 'up', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
  }, 120_000);
  afterAll(async () => {
    a?.child.kill('SIGKILL');
    b?.child.kill('SIGKILL');
    await Promise.all([a?.exited, b?.exited]);
    await fake?.close();
    await fresh?.drop();
  });

  it('A is killed mid-stream; the client resumes on B after its last sequence number and gets every later event once, in order, ending failed; the conversation holds no turn', async () => {
    const conversation = await sdk(a).conversations.create({});
    const before = fake.requests.length;
    fake.setNext(slow(60, 100));
    const stream = await sdk(a).responses.create({
      model: 'up/gpt-x',
      input: 'long story',
      background: true,
      stream: true,
      conversation: conversation.id,
    });
    const seen: Event[] = [];
    try {
      for await (const event of stream) {
        seen.push(event as Event);
        if (seen.length === 12) {
          a.child.kill('SIGKILL'); // mid-stream: deltas are still coming
          await a.exited;
        }
      }
    } catch {
      // the connection to A is gone
    }
    expect(seen.length).toBeGreaterThanOrEqual(12);
    const id = seen[0].response!.id;
    const last = seen.at(-1)!.sequence_number;
    await fake.requests[before].closed;

    const rest: Event[] = [];
    // The SDK throws the final `error` event (it carries `error`) after yielding response.failed.
    let thrown: unknown;
    try {
      for await (const event of await sdk(b).responses.retrieve(id, { stream: true, starting_after: last })) rest.push(event as Event);
    } catch (err) {
      thrown = err;
    }
    expect(rest.map((e) => e.sequence_number)).toEqual(rest.map((_, i) => last + 1 + i));
    const all = [...seen, ...rest];
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    expect(rest.at(-1)).toMatchObject({
      type: 'response.failed',
      response: { status: 'failed', error: { message: expect.stringContaining('stopped before it finished') } },
    });
    expect(thrown).toMatchObject({ message: expect.stringContaining('stopped before it finished') });
    expect(await sdk(b).responses.retrieve(id)).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    expect((await sdk(b).conversations.items.list(conversation.id)).data).toEqual([]);
    expect(await db('SELECT id FROM response_jobs WHERE project_id = $1 AND id = $2', [p.projectId, uuidOf(id)])).toEqual([]);
    // Not run a second time: the upstream was called once for it.
    expect(fake.requests.slice(before).filter((r) => JSON.stringify(r.body).includes('long story'))).toHaveLength(1);
  }, 90_000);

  it('cancel sent to B stops the upstream call A is making within 1 s; status cancelled', async () => {
    if (a.child.exitCode !== null || a.child.signalCode !== null) a = await startServer(env()); // killed above
    const conversation = await sdk(a).conversations.create({});
    const before = fake.requests.length;
    fake.setNext(slow(300, 100));
    const created = await sdk(a).responses.create({
      model: 'up/gpt-x',
      input: 'cancel me',
      background: true,
      conversation: conversation.id,
    });
    await fake.waitForRequests(before + 1, 10_000);
    const upstream = fake.requests[before];
    for (let i = 0; (await sdk(b).responses.retrieve(created.id)).status !== 'in_progress'; i++) {
      if (i > 200) throw new Error('never in progress');
      await sleep(25);
    }
    await sleep(300);
    const sentAt = Date.now();
    expect((await sdk(b).responses.cancel(created.id)).status).toBe('cancelled');
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
    expect(Date.now() - sentAt).toBeLessThan(1000);
    const events: Event[] = [];
    for await (const event of await sdk(b).responses.retrieve(created.id, { stream: true })) events.push(event as Event);
    expect(events.at(-1)!.type).toBe('response.cancelled');
    expect((await sdk(a).responses.retrieve(created.id)).status).toBe('cancelled');
    expect((await sdk(b).conversations.items.list(conversation.id)).data).toEqual([]);
  }, 60_000);

  it('200 concurrent background responses across both instances all finish; none lost, none run twice', async () => {
    const before = fake.requests.length;
    const tag = `batch-${Date.now()}`;
    const ids = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        sdk(i % 2 ? a : b)
          .responses.create({ model: 'up/gpt-x', input: `${tag} ${i}`, background: true })
          .then((r) => r.id),
      ),
    );
    expect(new Set(ids).size).toBe(200);
    const uuids = ids.map(uuidOf);
    const deadline = Date.now() + 60_000;
    let rows: { id: string; status: string; output_text: string; error: unknown }[];
    for (;;) {
      rows = await db(
        `SELECT id, status, body->>'output_text' AS output_text, body->'error' AS error FROM responses WHERE project_id = $1 AND id = ANY($2::uuid[])`,
        [p.projectId, uuids],
      );
      if (rows.length === 200 && rows.every((row) => row.status === 'completed')) break;
      if (Date.now() > deadline || rows.some((row) => row.status === 'failed'))
        throw new Error(
          `not all completed: ${JSON.stringify(rows.filter((row) => row.status === 'failed').slice(0, 3))}\nA: ${a.output().slice(-3000)}\nB: ${b.output().slice(-3000)}`,
        );
      await sleep(200);
    }
    const byId = new Map(rows.map((row) => [row.id, row.output_text]));
    uuids.forEach((uuid, i) => expect(byId.get(uuid)).toBe(`${tag} ${i}`));
    const calls = fake.requests.slice(before).map((r) => r.body.messages.at(-1).content as string);
    expect(calls).toHaveLength(200);
    expect(new Set(calls).size).toBe(200);
    expect(await db('SELECT count(*)::int AS n FROM response_jobs WHERE project_id = $1', [p.projectId])).toEqual([{ n: 0 }]);
    // Both instances ran some: their request logs name no instance, so ask the jobs' fake calls' ports.
    expect(new Set(fake.requests.slice(before).map((r) => r.remotePort)).size).toBeGreaterThan(1);
  }, 120_000);
});
