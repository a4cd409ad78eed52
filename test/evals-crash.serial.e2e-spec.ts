import request from 'supertest';

import { FakeUpstream, RecordedRequest, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { FreshDatabase, freshDatabase, queryFresh } from './support/fresh-database';
import { addProviderCredential, deploy, sleep } from './support/invoke-factories';
import { ServerProcess, startServer } from './support/server-process';
import { slowProvider } from './support/slow-provider';
import { TestApp } from './support/test-app';

/**
 * An experiment run whose instance is killed with `kill -9` mid-way (docs/evals.md, "Experiments"):
 * two instances as processes (the built server, `npm run build` first) on one PostgreSQL database
 * of their own, the fake upstream answering each call after a delay. The run must finish on the
 * other instance with every item graded and stored exactly once, and its totals (the run's
 * counters and the per-grader totals) equal to what its item rows add up to.
 *
 * Which instance holds the run cannot be told from the database (every instance's lease owner is
 * `evals-<uuid>`), so the run is started while only A is up. Once some items are stored, the
 * upstream holds its answers (A's calls in flight wait), B is started, A is killed, and the
 * upstream answers again. PostgreSQL only: PGlite is one process's embedded database, which two
 * instances cannot share.
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

const ITEMS = 300;
const CONCURRENCY = 8;
/** How long the upstream takes to answer each call. */
const PROVIDER_MS = 100;
/** Items stored before the kill, at least. */
const KILL_AFTER = 40;
const LEASE_MS = 2000;

const contentOf = (i: number) => `item ${String(i).padStart(3, '0')}${i % 2 ? ' odd' : ''}`;
/** Every third item expects the echo; the others expect something else. */
const expectedOf = (i: number) => (i % 3 === 0 ? contentOf(i) : `not item ${i}`);
/** The scores the graders must give item i for the echoing upstream: `exact` equals, `mentions` contains "item" and "odd". */
const scoresOf = (i: number) => {
  const exact = i % 3 === 0 ? 1 : 0;
  const mentions = i % 2 ? 1 : 0.5;
  return { exact, mentions, passed: exact === 1 && mentions === 1, score: (exact + mentions) / 2 };
};

function lastUserText(req: RecordedRequest): string {
  const user = [...((req.body?.messages ?? []) as { role: string; content: unknown }[])].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

interface RunDto {
  id: string;
  status: string;
  error: string | null;
  progress: { total: number; completed: number; errored: number; passed: number };
  graders: { name: string; graded: number; passed: number; meanScore: number | null }[];
}

onPostgres('an experiment run across a kill -9 (PostgreSQL only; skipped on PGlite, which two processes cannot share)', () => {
  let fresh: FreshDatabase;
  let fake: FakeUpstream;
  let provider: Awaited<ReturnType<typeof slowProvider>>;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let p: TestProject;
  const env = () => ({
    ...(fresh.env as Record<string, string>),
    // A killed instance's run is queued again about 2 s after its last renewal.
    RESPONSES_JOB_LEASE_MS: String(LEASE_MS),
    // The held calls wait for B to start: they must not time out meanwhile (an errored item would be stored).
    PROVIDER_TIMEOUT_MS: '120000',
    PROVIDER_MAX_RETRIES: '0',
  });
  const db = <T>(sql: string, params: unknown[] = []): Promise<T[]> => queryFresh<T>(fresh, sql, params);
  const as = () => ({ 'X-API-Key': p.key });

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    provider = await slowProvider(fake.url.replace(/\/v1$/, ''), PROVIDER_MS);
    fresh = await freshDatabase({ migrated: true });
    a = await startServer(env());
    const remote = { http: () => request(a!.url) } as unknown as TestApp;
    p = await createProject(remote);
    await addProviderCredential(remote, p, { name: 'up', type: 'openai', baseUrl: `${provider.url}/v1`, apiKey: 'sk-up' });
    await deploy(remote, p, { slug: 'echo', provider: 'up', model: 'gpt-x', template: [{ role: 'system', content: 'Repeat the user.' }] });
    await remote.http().post('/v2/datasets').set(as()).send({ name: 'crash-items' }).expect(200);
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      messages: [{ role: 'user', content: contentOf(i) }],
      expected: expectedOf(i),
      metadata: { n: i },
    }));
    await remote.http().post('/v2/datasets/crash-items/items').set(as()).send({ items }).expect(200);
    await remote
      .http()
      .put('/v2/graders/exact')
      .set(as())
      .send({ config: { type: 'equals' } })
      .expect(200);
    await remote
      .http()
      .put('/v2/graders/mentions')
      .set(as())
      .send({ config: { type: 'contains', values: ['item', 'odd'] } })
      .expect(200);
  }, 120_000);
  afterAll(async () => {
    provider?.release();
    a?.child.kill('SIGKILL');
    b?.child.kill('SIGKILL');
    await Promise.all([a?.exited, b?.exited]);
    await provider?.close();
    await fake?.close();
    await fresh?.drop();
  });

  it('A is killed mid-run: the run completes on B, every item graded once, the totals equal the item rows', async () => {
    const started = Date.now();
    const onA = () => request(a!.url);
    const created = await onA()
      .post('/v2/evals/runs')
      .set(as())
      .send({ dataset: 'crash-items', target: { prompt: 'echo', version: 1 }, graders: ['exact', 'mentions'], concurrency: CONCURRENCY })
      .expect(200);
    const runId: string = created.body.id;
    const get = async (server: ServerProcess): Promise<RunDto> =>
      (await request(server.url).get(`/v2/evals/runs/${runId}`).set(as()).expect(200)).body;

    // 1. A runs it alone until some batches are stored.
    for (let run = await get(a!); run.progress.completed < KILL_AFTER; run = await get(a!)) {
      if (!['queued', 'running'].includes(run.status)) throw new Error(`ended before the kill: ${JSON.stringify(run)}`);
      if (Date.now() - started > 30_000) throw new Error(`too slow: ${JSON.stringify(run.progress)}\n${a!.output().slice(-3000)}`);
      await sleep(50);
    }

    // 2. The upstream holds its answers; B starts; A (the only instance that could have claimed the run) is killed.
    provider.hold();
    const [job] = await db<{ lease_owner: string; state: string; attempts: number }>(
      'SELECT lease_owner, state, attempts FROM response_jobs WHERE project_id = $1 AND id = $2',
      [p.projectId, runId],
    );
    expect(job).toMatchObject({ state: 'running', attempts: 1, lease_owner: expect.stringMatching(/^evals-/) });
    b = await startServer(env());
    const callsBeforeKill = fake.requests.length;
    a!.child.kill('SIGKILL');
    await a!.exited;
    const atKill = await get(b);
    expect(atKill.status).toBe('running');
    const storedAtKill = new Set(
      (await db<{ item_id: string }>('SELECT item_id FROM eval_run_items WHERE project_id = $1 AND run_id = $2', [p.projectId, runId])).map(
        (row) => row.item_id,
      ),
    );
    expect(storedAtKill.size).toBe(atKill.progress.completed);
    expect(storedAtKill.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(storedAtKill.size).toBeLessThan(ITEMS);
    provider.release();

    // 3. B queues it again once A's lease expired, claims it and runs the items not stored yet.
    const owners = new Set<string>();
    let final: RunDto;
    for (;;) {
      final = await get(b);
      const jobs = await db<{ lease_owner: string | null }>('SELECT lease_owner FROM response_jobs WHERE project_id = $1 AND id = $2', [
        p.projectId,
        runId,
      ]);
      for (const row of jobs) if (row.lease_owner) owners.add(row.lease_owner);
      if (!['queued', 'running'].includes(final.status)) break;
      if (Date.now() - started > 90_000) throw new Error(`not finished on B: ${JSON.stringify(final)}\n${b.output().slice(-3000)}`);
      await sleep(100);
    }
    const tookOverIn = Date.now() - started;
    expect({ status: final.status, error: final.error }).toEqual({ status: 'completed', error: null });
    expect([...owners].filter((owner) => owner !== job.lease_owner)).toHaveLength(1);
    expect(await db('SELECT id FROM response_jobs WHERE project_id = $1', [p.projectId])).toEqual([]);

    // 4. One row per dataset item, none missing, none twice, none of another item.
    const rows = await db<{
      item_id: string;
      n: number;
      status: string;
      passed: boolean;
      score: number;
      scores: { grader: string; score: number; passed: boolean }[];
      output_text: string;
      prompt_tokens: number;
      completion_tokens: number;
    }>(
      `SELECT r.item_id, (i.metadata->>'n')::int AS n, r.status, r.passed, r.score, r.scores, r.output->>'text' AS output_text,
              r.prompt_tokens, r.completion_tokens
         FROM eval_run_items r LEFT JOIN dataset_items i ON i.project_id = r.project_id AND i.id = r.item_id AND i.until_version IS NULL
        WHERE r.project_id = $1 AND r.run_id = $2 ORDER BY n`,
      [p.projectId, runId],
    );
    expect(rows).toHaveLength(ITEMS);
    expect(new Set(rows.map((row) => row.item_id)).size).toBe(ITEMS);
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));

    // 5. Each item graded as the echoing upstream makes it.
    const wrong = rows.filter((row) => {
      const want = scoresOf(row.n);
      const by = new Map(row.scores.map((s) => [s.grader, s]));
      return (
        row.status !== 'ok' ||
        row.output_text !== contentOf(row.n) ||
        row.passed !== want.passed ||
        Math.abs(row.score - want.score) > 1e-9 ||
        row.scores.length !== 2 ||
        by.get('exact')?.score !== want.exact ||
        by.get('mentions')?.score !== want.mentions
      );
    });
    expect(wrong).toEqual([]);

    // 6. The run's counters and the per-grader totals equal what the item rows add up to.
    const [run] = await db<Record<string, string | number>>(
      `SELECT total_items, completed_items, errored_items, passed_items, prompt_tokens::int, completion_tokens::int, latency_ms_sum::int
         FROM eval_runs WHERE project_id = $1 AND id = $2`,
      [p.projectId, runId],
    );
    const [sums] = await db<Record<string, string | number>>(
      `SELECT count(*)::int AS completed_items, count(*) FILTER (WHERE status = 'error')::int AS errored_items,
              count(*) FILTER (WHERE passed)::int AS passed_items, coalesce(sum(prompt_tokens), 0)::int AS prompt_tokens,
              coalesce(sum(completion_tokens), 0)::int AS completion_tokens, sum(latency_ms)::int AS latency_ms_sum
         FROM eval_run_items WHERE project_id = $1 AND run_id = $2`,
      [p.projectId, runId],
    );
    expect(run).toEqual({ total_items: ITEMS, ...sums });
    const wantPassed = Array.from({ length: ITEMS }, (_, i) => scoresOf(i)).filter((s) => s.passed).length;
    expect(sums.passed_items).toBe(wantPassed);
    const totals = await db('SELECT grader, graded, passed, score_sum FROM eval_run_grader_totals WHERE project_id = $1 AND run_id = $2', [
      p.projectId,
      runId,
    ]);
    const fromItems = await db(
      `SELECT s->>'grader' AS grader, count(*)::int AS graded, count(*) FILTER (WHERE (s->>'passed')::boolean)::int AS passed,
              sum((s->>'score')::float8) AS score_sum
         FROM eval_run_items r, jsonb_array_elements(r.scores) s WHERE r.project_id = $1 AND r.run_id = $2 GROUP BY 1`,
      [p.projectId, runId],
    );
    const byGrader = (list: unknown[]) => new Map((list as { grader: string }[]).map((row) => [row.grader, row]));
    expect(byGrader(totals)).toEqual(byGrader(fromItems));
    expect(byGrader(totals)).toEqual(
      new Map([
        ['exact', { grader: 'exact', graded: ITEMS, passed: ITEMS / 3, score_sum: ITEMS / 3 }],
        ['mentions', { grader: 'mentions', graded: ITEMS, passed: ITEMS / 2, score_sum: ITEMS / 2 + ITEMS / 4 }],
      ]),
    );
    expect(final.progress).toEqual({ total: ITEMS, completed: ITEMS, errored: 0, passed: wantPassed });

    // 7. The upstream: every item called; an item stored before the kill never again (B ran only
    // what was not stored); the items called twice are those A had in flight or not yet stored.
    const callsOf = new Map<string, number>();
    for (const req of fake.requests) callsOf.set(lastUserText(req), (callsOf.get(lastUserText(req)) ?? 0) + 1);
    const byN = new Map(rows.map((row) => [row.item_id, row.n]));
    const storedBefore = [...storedAtKill].map((id) => contentOf(byN.get(id)!));
    expect(storedBefore.filter((content) => callsOf.get(content) !== 1)).toEqual([]);
    expect(Array.from({ length: ITEMS }, (_, i) => contentOf(i)).filter((content) => !callsOf.get(content))).toEqual([]);
    const twice = [...callsOf.values()].filter((n) => n > 1).length;
    expect([...callsOf.values()].filter((n) => n > 2)).toEqual([]);
    expect(twice).toBeLessThanOrEqual(ITEMS - storedAtKill.size);

    console.log(
      `evals crash: ${ITEMS} items at concurrency ${CONCURRENCY}, upstream ${PROVIDER_MS} ms per call, lease ${LEASE_MS} ms; ` +
        `A killed with ${storedAtKill.size} items stored and ${callsBeforeKill} upstream calls made (${provider.cut()} cut mid-call); ` +
        `B completed the run: ${rows.length} item rows, ${sums.passed_items} passed, ${sums.errored_items} errored; ` +
        `${twice} items called twice (in flight or not yet stored at the kill), ${fake.requests.length} upstream calls in all; ` +
        `${(tookOverIn / 1000).toFixed(1)} s`,
    );
  }, 120_000);
});
