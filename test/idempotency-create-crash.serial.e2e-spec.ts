import request from 'supertest';

import { createProject, TestProject } from './support/factories';
import { FreshDatabase, freshDatabase } from './support/fresh-database';
import { sleep } from './support/invoke-factories';
import { restartServer, ServerProcess, startServer } from './support/server-process';
import { TestApp } from './support/test-app';

const MESSAGES = 400;
const CONCURRENCY = 40;
/**
 * A short claim lease (PROVIDER_TIMEOUT_MS × attempts + IDEMPOTENCY_LEASE_MARGIN_S: 1 + 2 s): keys
 * whose create died uncommitted free up within the test. Still longer than a create takes, and a
 * key is sent again only once its request has answered or lost its connection, so no live claim
 * is ever taken over.
 */
const SERVER_ENV = { PROVIDER_TIMEOUT_MS: '1000', PROVIDER_MAX_RETRIES: '0', IDEMPOTENCY_LEASE_MARGIN_S: '2' };

/**
 * Issue 24: creates with an Idempotency-Key are exactly once across `kill -9`. 400 message creates
 * run 40 at a time while the server is killed twice; every request that got no answer is retried
 * with its key until it gets one. The create and the key's outcome commit in one transaction
 * (docs/security.md, "Idempotency keys"), so each message is stored exactly once. Serial: it kills
 * and restarts a server process.
 */
describe('exactly-once creates across kill -9', () => {
  let fresh: FreshDatabase;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    fresh = await freshDatabase({ migrated: true });
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await fresh.drop();
  });

  it('400 message creates, retried after two kills, store each message once', async () => {
    const env = { ...(fresh.env as Record<string, string>), ...SERVER_ENV };
    server = await startServer(env);
    const remote = () => ({ http: () => request(server!.url) }) as unknown as TestApp;
    const p: TestProject = await createProject(remote());
    const thread = await remote().http().post('/v2/threads').set('X-API-Key', p.key).send({}).expect(200);
    const threadId: string = thread.body.id;

    const answered = new Map<number, string>();
    let kills = 0;
    let replays = 0;
    const send = async (n: number): Promise<void> => {
      const url = server!.url;
      try {
        const res = await fetch(`${url}/v2/threads/${threadId}/messages`, {
          method: 'POST',
          headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json', 'Idempotency-Key': `create-${n}` },
          body: JSON.stringify({ message: { role: 'user', content: `message ${n}` } }),
        });
        if (res.status === 200) {
          if (res.headers.get('idempotent-replayed') === 'true') replays++;
          answered.set(n, ((await res.json()) as { id: string }).id);
        } else if (res.status !== 409) {
          throw new Error(`message ${n}: ${res.status} ${await res.text()}`);
        }
      } catch (err) {
        // A connection cut by the kill (fetch's TypeError comes from another realm than jest's): retried below.
        if ((err as Error).name !== 'TypeError') throw err;
      }
    };
    const killAfter = [Math.floor(MESSAGES * 0.35), Math.floor(MESSAGES * 0.7)];
    const deadline = Date.now() + 150_000;
    while (answered.size < MESSAGES) {
      if (Date.now() > deadline) throw new Error(`only ${answered.size} of ${MESSAGES} answered`);
      const pending = Array.from({ length: MESSAGES }, (_, n) => n).filter((n) => !answered.has(n));
      let next = 0;
      const worker = async () => {
        while (next < pending.length) {
          const n = pending[next++];
          await send(n);
          if (kills < killAfter.length && answered.size >= killAfter[kills]) {
            kills++;
            const dying = server!;
            dying.child.kill('SIGKILL');
            await dying.exited;
            server = await restartServer(env);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      // Keys claimed by a create that died uncommitted answer 409 until their lease runs out.
      if (answered.size < MESSAGES) await sleep(1000);
    }
    expect(kills).toBe(2);

    // Every message through the API, page by page: each content exactly once, with the id its create answered.
    const stored = new Map<string, string[]>();
    let after: string | undefined;
    for (;;) {
      const page = await remote()
        .http()
        .get(`/v2/threads/${threadId}/messages`)
        .query({ limit: 100, ...(after ? { after } : {}) })
        .set('X-API-Key', p.key)
        .expect(200);
      for (const m of page.body.data as { id: string; content: { content: string }[] }[]) {
        stored.set(m.content[0].content, [...(stored.get(m.content[0].content) ?? []), m.id]);
      }
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    const duplicated = [...stored].filter(([, ids]) => ids.length > 1).map(([content]) => content);
    expect(duplicated).toEqual([]);
    expect(stored.size).toBe(MESSAGES);
    for (const [n, id] of answered) expect(stored.get(`message ${n}`)).toEqual([id]);
    console.log(`${MESSAGES} creates, ${kills} kills, ${replays} answered by a replay after a restart`);
  }, 240_000);
});
