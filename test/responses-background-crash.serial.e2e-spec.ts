import * as path from 'node:path';

import OpenAI, { APIConnectionError } from 'openai';
import request from 'supertest';

import { FakeUpstream, RecordedRequest, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { FreshDatabase, freshDatabase, queryFresh } from './support/fresh-database';
import { addProviderCredential, INVOKE_APP_ENV, sleep } from './support/invoke-factories';
import { backgroundJobsEnv, restartServer, ServerProcess, startServer } from './support/server-process';
import { slowProvider } from './support/slow-provider';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 40, item 8: "Background responses cannot be retried safely: after a kill -9, some of 120
 * retried calls were stored twice and the provider was called twice." With an Idempotency-Key, the
 * queued response's id is the key's outcome, committed with the response and its job
 * (docs/openai-conversations.md, "Background responses and resumable streams").
 *
 * As a client sees it: 120 background creates through the official `openai` SDK, each with its own
 * key, to the built server as a process of its own on a database of its own; kill -9 once about
 * half have answered; restart on the same database and send all 120 again, same keys, same bodies.
 * Each key must answer one response (the first answer's, when there was one), stored once, and no
 * input may reach the provider twice.
 *
 * On both engines. One server process holds the database at a time (the killed one, then the one
 * after it), and the test reads the database itself only where nothing else has it open on PGlite,
 * which one process opens at a time (docs/architecture.md, "The DATA_DIR lock"): what the kill
 * left, between the kill and the restart; the rows at the end, once the restarted server stopped.
 */
const ON_PGLITE = !process.env.DATABASE_URL;

const COUNT = 120;
const KILL_AFTER = 60;
/** How long the provider takes to answer each call. */
const PROVIDER_MS = 1000;
const inputOf = (i: number) => `bgcrash item ${String(i).padStart(3, '0')} end`;
const keyOf = (run: string, i: number) => `bgcrash-${run}-${i}`;
const uuidOf = (id: string) => id.slice(5).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
const FINAL = new Set(['completed', 'incomplete', 'failed', 'cancelled']);

/** The last user message's text of a chat completions request, as the provider received it. */
function lastUserText(req: RecordedRequest): string {
  const user = [...((req.body?.messages ?? []) as { role: string; content: unknown }[])].reverse().find((m) => m.role === 'user');
  if (typeof user?.content === 'string') return user.content;
  return ((user?.content ?? []) as { type: string; text?: string }[])
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

describe('background responses retried after kill -9', () => {
  let fresh: FreshDatabase;
  let fake: FakeUpstream;
  let provider: Awaited<ReturnType<typeof slowProvider>>;
  let server: ServerProcess | undefined;
  let after: TestApp | undefined;
  let p: TestProject;
  const env = () => ({
    ...backgroundJobsEnv(fresh.env as Record<string, string>, 16),
    // The idempotency lease is the provider timeout times its attempts plus IDEMPOTENCY_LEASE_MARGIN_S
    // (docs/security.md, "Crash safety"): 3 s × 1 + 1 s = 4 s, so the claims of requests cut by the
    // kill free up quickly. The provider timeout is an idle limit, above the slow provider's 1 s.
    PROVIDER_TIMEOUT_MS: '3000',
    PROVIDER_MAX_RETRIES: '0',
    IDEMPOTENCY_LEASE_MARGIN_S: '1',
  });
  type Query = <T>(sql: string, params?: unknown[]) => Promise<T[]>;
  /** PostgreSQL: a client of its own, while a server runs or not. */
  const pg: Query = <T>(sql: string, params: unknown[] = []) => queryFresh<T>(fresh, sql, params);
  /**
   * The database as the killed server left it, read before the restart. On PGlite its data directory
   * opened by PGlite alone, then closed: not by the application (crash-fixture's reopen), whose job
   * worker would claim the queued jobs at once and take over the expired ones before they are read.
   */
  const leftByKill: Query = async <T>(sql: string, params: unknown[] = []) => {
    if (!ON_PGLITE) return pg<T>(sql, params);
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir: path.join((fresh.env as { DATA_DIR: string }).DATA_DIR, 'pgdata') });
    try {
      return (await db.query<T>(sql, params)).rows;
    } finally {
      await db.close();
    }
  };
  /**
   * The database once every job ended. On PGlite the restarted server is stopped first (SIGTERM,
   * awaited), then the application opened on its data directory (crash-fixture's reopen).
   */
  const atEnd = async (): Promise<Query> => {
    if (!ON_PGLITE) return pg;
    server!.child.kill('SIGTERM');
    const code = await server!.exited;
    expect({ code, output: code === 0 ? '' : server!.output().slice(-3000) }).toEqual({ code: 0, output: '' });
    server = undefined;
    after = await createTestApp({ ...(fresh.env as Record<string, string>), ...INVOKE_APP_ENV });
    const { dataSource } = after;
    return <T>(sql: string, params: unknown[] = []) => dataSource.query(sql, params) as Promise<T[]>;
  };

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    provider = await slowProvider(fake.url.replace(/\/v1$/, ''), PROVIDER_MS);
    fresh = await freshDatabase({ migrated: true });
    server = await startServer(env());
    const remote = { http: () => request(server!.url) } as unknown as TestApp;
    p = await createProject(remote);
    await addProviderCredential(remote, p, { name: 'up', type: 'openai', baseUrl: `${provider.url}/v1`, apiKey: 'sk-up' });
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await after?.close();
    await provider?.close();
    await fake?.close();
    await fresh?.drop();
  });

  it('answers every retried key with one response, stored once, its input sent to the provider at most once', async () => {
    const started = Date.now();
    const run = `${Date.now()}`;
    const bodyOf = (i: number) => ({ model: 'up/gpt-x', input: inputOf(i), background: true as const });
    const create = (openai: OpenAI, i: number) =>
      openai.responses.create(bodyOf(i), { headers: { 'Idempotency-Key': keyOf(run, i) } }).withResponse();

    // 1. Twelve at a time (the jobs get to the provider meanwhile); kill -9 in the callback that saw
    // the 60th answer (no chance for a late write).
    const first = new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: p.key, maxRetries: 0, timeout: 30_000 });
    const answered = new Map<number, string>();
    const errors: unknown[] = [];
    let killed = false;
    let callsAtKill = 0;
    let next = 0;
    const sender = async () => {
      while (next < COUNT && !killed) {
        const i = next++;
        await create(first, i)
          .then(({ data, response }) => {
            expect({ status: response.status, response: data.status }).toEqual({ status: 200, response: 'queued' });
            answered.set(i, data.id);
            if (answered.size >= KILL_AFTER && !killed) {
              killed = true;
              server!.child.kill('SIGKILL');
              callsAtKill = fake.requests.length;
            }
          })
          .catch((err: unknown) => errors.push(err));
      }
    };
    await Promise.all(Array.from({ length: 12 }, sender));
    if (!killed) server!.child.kill('SIGKILL');
    await server!.exited;
    // What was not answered was cut by the kill; nothing else may have gone wrong.
    for (const err of errors) expect(err).toBeInstanceOf(APIConnectionError);
    expect(answered.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(answered.size).toBeLessThan(COUNT);

    // What the killed server left: jobs it held (running) and jobs nobody had claimed yet (queued).
    const jobsAtKill = await leftByKill<{ id: string; state: string }>('SELECT id, state FROM response_jobs WHERE project_id = $1', [
      p.projectId,
    ]);
    const runningAtKill = new Set(jobsAtKill.filter((job) => job.state === 'running').map((job) => job.id));
    // The slow provider sees its callers' connections close.
    for (let waited = 0; provider.open() > 0 && waited < 5_000; waited += 20) await sleep(20);
    const cutAtKill = provider.cut();
    expect(runningAtKill.size).toBeGreaterThan(0);

    // 2. Restart on the same database; every key again, same body. The SDK retries the 409 of a key
    // whose killed request still holds its claim until that claim's lease runs out.
    server = await restartServer(env());
    const again = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: p.key, maxRetries: 8, timeout: 30_000 });
    const retries = await Promise.all(Array.from({ length: COUNT }, (_, i) => create(again, i)));
    const ids = retries.map(({ data }) => data.id);
    retries.forEach(({ response, data }) => {
      expect(response.status).toBe(200);
      expect(data.id).toMatch(/^resp_[0-9a-f]{32}$/);
    });
    for (const [i, id] of answered) {
      expect({ i, id: retries[i].data.id }).toEqual({ i, id });
      expect({ i, replayed: retries[i].response.headers.get('idempotent-replayed') }).toEqual({ i, replayed: 'true' });
    }
    const replayedAfterKill = retries.filter(({ response }) => response.headers.get('idempotent-replayed') === 'true').length;
    expect(new Set(ids).size).toBe(COUNT);

    // 3. Every job ends. Those the killed server held end failed, never run again: the provider may
    // already have been called (docs/openai-conversations.md, "Jobs, leases and takeover"). Every
    // other one completes with its own input echoed.
    const final = new Map<number, OpenAI.Responses.Response>();
    const deadline = Date.now() + 30_000;
    while (final.size < COUNT) {
      if (Date.now() > deadline) throw new Error(`not all ended: ${COUNT - final.size} still running\n${server.output().slice(-3000)}`);
      const pending = ids.map((id, i) => [i, id] as const).filter(([i]) => !final.has(i));
      const now = await Promise.all(pending.map(([i, id]) => again.responses.retrieve(id).then((r) => [i, r] as const)));
      for (const [i, r] of now) if (FINAL.has(r.status!)) final.set(i, r);
      if (final.size < COUNT) await sleep(250);
    }
    const failed: number[] = [];
    for (const [i, r] of final) {
      if (runningAtKill.has(uuidOf(r.id))) {
        failed.push(i);
        expect({ i, status: r.status, error: r.error?.message }).toEqual({
          i,
          status: 'failed',
          error: expect.stringContaining('stopped before it finished'),
        });
      } else {
        expect({ i, status: r.status, text: r.output_text }).toEqual({ i, status: 'completed', text: inputOf(i) });
      }
    }
    expect(failed).toHaveLength(runningAtKill.size);

    // 4. The provider: each input at most once; each completed response's exactly once. A job cut
    // mid-call by the kill is not rerun, so the calls are at most 120 (not 120 plus those running).
    const callsOf = new Map<string, number>();
    for (const req of fake.requests) callsOf.set(lastUserText(req), (callsOf.get(lastUserText(req)) ?? 0) + 1);
    const completed = [...final].filter(([, r]) => r.status === 'completed').map(([i]) => i);
    expect([...callsOf.values()].filter((n) => n > 1)).toEqual([]);
    expect(completed.map((i) => callsOf.get(inputOf(i)))).toEqual(completed.map(() => 1));
    expect(fake.requests.length).toBeLessThanOrEqual(COUNT);

    // 5. The database (on PGlite once the restarted server stopped): one response row per key, no
    // more, 120 in all; each key's outcome completed with the id it answered; no job left.
    const db = await atEnd();
    const rows = await db<{ id: string; input: string }>('SELECT id, input::text AS input FROM responses WHERE project_id = $1', [
      p.projectId,
    ]);
    const notOnce = ids
      .map((id, i) => ({ i, id: uuidOf(id), stored: rows.filter((row) => row.input.includes(inputOf(i))).map((row) => row.id) }))
      .filter(({ id, stored }) => stored.length !== 1 || stored[0] !== id);
    expect(notOnce).toEqual([]);
    expect(rows).toHaveLength(COUNT);
    const keys = await db<{ key: string; state: string; response_id: string }>(
      `SELECT key, state, outcome->'body'->>'responseId' AS response_id FROM idempotency_keys WHERE project_id = $1`,
      [p.projectId],
    );
    expect(new Map(keys.map((k) => [k.key, [k.state, k.response_id]]))).toEqual(
      new Map(ids.map((id, i) => [keyOf(run, i), ['completed', uuidOf(id)]])),
    );
    expect(await db('SELECT id FROM response_jobs WHERE project_id = $1', [p.projectId])).toEqual([]);

    console.log(
      `issue 40 item 8: ${answered.size}/${COUNT} answered (killed at the ${KILL_AFTER}th answer), ${runningAtKill.size} jobs running and ` +
        `${jobsAtKill.length - runningAtKill.size} queued at it, ${callsAtKill} provider calls made by then (${cutAtKill} cut mid-call); after the restart ` +
        `${replayedAfterKill} retries replayed, ${COUNT - replayedAfterKill} created; ${completed.length} completed, ` +
        `${failed.length} failed (taken over); ${fake.requests.length} provider calls in all; ${((Date.now() - started) / 1000).toFixed(1)} s on ${ON_PGLITE ? 'PGlite' : 'PostgreSQL'}`,
    );
  }, 90_000);
});
