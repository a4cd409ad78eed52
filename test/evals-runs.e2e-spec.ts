import {
  byItemId,
  createDataset,
  expectedOf,
  expectedRunItem,
  expectTotalsOfItems,
  GRADER_NAMES,
  GRADERS,
  isSlow,
  ITEMS,
  MAX_MS,
  meanOf,
  oracle,
  replyOf,
  round6,
  runToEnd,
  ScriptedUpstream,
  SLOW_MS,
  startExperimentApp,
  sumOf,
  template,
  tools,
  usageByEnvironment,
  waitForRun,
  walk,
} from './support/eval-factories';
import type { TestProject } from './support/factories';
import { Client, expectResourceError } from './support/http';
import { deploy, invokePath, sleep } from './support/invoke-factories';
import type { TestApp } from './support/test-app';

/**
 * Experiment runs through the API (docs/evals.md, "Experiments", "Comparing runs", "Spend", "The
 * deploy gate"): 200 items against two versions of a prompt on a scripted upstream, graded by one
 * grader of each kind and checked item by item against an oracle; the comparison; draft and
 * environment targets and their usage; a cancel that closes the upstream calls; the deploy gate.
 */
describe('evals: experiment runs', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let up: ScriptedUpstream;
  const runs: Record<string, any> = {};
  /** Item id → n; per run, item id → the latency it reported. */
  let nOf: Map<string, number>;
  const latency: Record<string, Map<string, number>> = {};
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

  const put = (path: string, body: object) => t.http().put(path).set('X-API-Key', p.key).send(body);
  const subject = (system: string, environments: string[]) =>
    deploy(t, p, { slug: 'subject', provider: 'up', model: 'gpt-eval', template: template(system), tools, environments });
  const dataset = (name: string, items: object[]) => createDataset(api, name, items);

  // The deploy gate's prompt: `gated` on local/echo, a version per template, and deploys of it to `preview`.
  const version = async (content: string, environments: string[] = []) =>
    (await deploy(t, p, { slug: 'gated', template: [{ role: 'user', content }], environments })).version;
  const deployTo = (v: number) => api.post('/v2/prompts/gated/deployments', { environment: 'preview', version: v });
  const refusal = async (v: number) => {
    const res = await deployTo(v);
    const message = `The deploy gate of "preview" refused gated v${v}`;
    expect({ status: res.status, message: res.body.error?.message }).toEqual({ status: 409, message });
    return res.body.error.details;
  };
  const noRun = (v: number, dataset: string) =>
    `no completed experiment run of gated v${v} on dataset "${dataset}": run one (POST /v2/evals/runs or parley eval run)`;

  beforeAll(async () => {
    ({ t, p, api, up } = await startExperimentApp());
    await subject('v1', ['production']);
    await subject('v2', ['staging']);
    const items = Array.from({ length: ITEMS }, (_, n) => ({ variables: { n }, expected: expectedOf(n), metadata: { n } }));
    nOf = new Map((await dataset('bench', items)).map((id, n) => [id, n]));
    for (const [name, body] of Object.entries(GRADERS)) await put(`/v2/graders/${name}`, body).expect(200);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await t.close();
    await up.close();
  });

  it('grades 200 items of two versions with every kind of grader: each item as the oracle says, totals equal to the item rows', async () => {
    process.on('warning', onWarning);
    const created = await Promise.all(
      [1, 2].map((version) =>
        api.post('/v2/evals/runs', { dataset: 'bench', target: { prompt: 'subject', version }, graders: GRADER_NAMES, concurrency: 32 }),
      ),
    );
    for (const res of created) expect(res.body).toMatchObject({ status: 'queued', progress: { total: ITEMS, completed: 0 } });
    [runs.v1, runs.v2] = await Promise.all(created.map((res) => waitForRun(api, res.body.id)));
    for (const version of ['v1', 'v2']) {
      const run = runs[version];
      const items = await walk(api, `/v2/evals/runs/${run.id}/items`);
      latency[version] = new Map(items.map((item) => [item.itemId, item.latencyMs]));
      const expected = [...nOf].map(([id, n]) => expectedRunItem(id, n, replyOf(version, n), latency[version].get(id)!));
      expect(items).toEqual(expected.sort(byItemId));
      // A slow item waited for its upstream, so failed `fast`; the others passed it unless the machine was loaded.
      for (const [id, n] of nOf) if (isSlow(n)) expect(latency[version].get(id)).toBeGreaterThanOrEqual(SLOW_MS);
      expect(items.filter((item) => item.latencyMs <= MAX_MS).length).toBeGreaterThan(0);
      expect(run).toMatchObject({
        status: 'completed',
        error: null,
        dataset: { name: 'bench', version: 1 },
        target: { type: 'version', prompt: 'subject', version: version === 'v1' ? 1 : 2 },
        logEnvironment: `eval-${run.id}`,
        graders: GRADER_NAMES.map((name) => ({ name, type: GRADERS[name].config.type })),
      });
      await expectTotalsOfItems(t, p.projectId, run, items);
      expect(run.progress.passed).toBeGreaterThan(0);
      expect((await walk(api, `/v2/evals/runs/${run.id}/items?passed=false`)).map((item) => item.itemId)).toEqual(
        items.filter((item) => !item.passed).map((item) => item.itemId),
      );
    }
    // The jobs left the queue when their runs ended.
    expect(await t.dataSource.query('SELECT id FROM response_jobs WHERE project_id = $1', [p.projectId])).toEqual([]);
  });

  it('warns of no leak for a run of concurrency 32', () => {
    // One abort signal per run, listened on by every call in flight (undici adds a listener per request).
    expect(warnings.filter((warning) => warning.includes('MaxListenersExceededWarning'))).toEqual([]);
  });

  it('compares run v2 with run v1: exactly the items whose mean score fell are regressed, with the counts', async () => {
    const meanIn = (version: string, id: string) => meanOf(oracle(nOf.get(id)!, replyOf(version, nOf.get(id)!), latency[version].get(id)!));
    const outcomeOf = (id: string) => {
      const [a, b] = [meanIn('v1', id), meanIn('v2', id)];
      return b < a - 1e-9 ? 'regressed' : b > a + 1e-9 ? 'improved' : 'unchanged';
    };
    const idsOf = (outcome: string) => [...nOf.keys()].filter((id) => outcomeOf(id) === outcome).sort();
    // The script's known subset regressed ("wrong", tag "z" on a JSON answer, a text id for lookup) but where
    // "fine" became "ok"; only an item whose latency score differed between the runs may differ from it.
    const known = [...nOf].filter(([, n]) => (n % 10 === 7 || (n % 16 === 4 && n % 3 === 1) || (n % 8 === 2 && n <= 150)) && n % 15 !== 3);
    expect(known.length).toBe(42);
    const steady = (id: string) => latency.v1.get(id)! <= MAX_MS === latency.v2.get(id)! <= MAX_MS;
    expect(idsOf('regressed').filter(steady)).toEqual(
      known
        .map(([id]) => id)
        .filter(steady)
        .sort(),
    );

    const base = `/v2/evals/runs/${runs.v2.id}/compare/${runs.v1.id}`;
    const first = (await api.get(`${base}?limit=7`).expect(200)).body;
    expect(first).toMatchObject({
      object: 'eval.comparison',
      base: runs.v1.id,
      candidate: runs.v2.id,
      outcome: 'regressed',
      has_more: true,
      counts: {
        regressed: idsOf('regressed').length,
        improved: idsOf('improved').length,
        unchanged: idsOf('unchanged').length,
        onlyInBase: 0,
        onlyInCandidate: 0,
      },
      graders: GRADER_NAMES.map((name, i) => ({
        name,
        baseMean: runs.v1.graders[i].meanScore,
        candidateMean: runs.v2.graders[i].meanScore,
        basePassRate: runs.v1.graders[i].passRate,
        candidatePassRate: runs.v2.graders[i].passRate,
      })),
    });
    for (const outcome of ['regressed', 'improved', 'unchanged']) {
      const listed = await walk(api, `${base}?outcome=${outcome}`, 7);
      expect(listed.map((row) => row.id)).toEqual(idsOf(outcome));
      for (const row of listed) {
        const scores = [row.base.itemId, row.base.score, row.candidate.itemId, row.candidate.score, row.delta];
        const [a, b] = [meanIn('v1', row.id), meanIn('v2', row.id)];
        expect(scores).toEqual([row.id, a, row.id, b, round6(b - a)]);
      }
    }
  });

  it("logs every call of a run, its items' and its judge's, under eval-<run id>: usage shows each run as its own line", async () => {
    const linesOf = await usageByEnvironment(api);
    for (const { id } of [runs.v1, runs.v2]) {
      expect(sumOf(linesOf(`eval-${id}`).map((row: any) => row.calls))).toBe(2 * ITEMS);
      const logs = await t.dataSource.query(
        `SELECT environment, count(*)::int AS n FROM request_logs WHERE project_id = $1 AND metadata->>'parley_eval_run' = $2 GROUP BY environment`,
        [p.projectId, id],
      );
      expect(logs).toEqual([{ environment: `eval-${id}`, n: 2 * ITEMS }]);
    }
  });

  it('runs a draft and an environment target: each item as the oracle says, their calls in usage under eval-<run id>', async () => {
    const ns = [0, 2, 7, 17, 18, 40];
    const ids = await dataset(
      'few',
      ns.map((n) => ({ variables: { n }, expected: expectedOf(n) })),
    );
    const graders = ['exact', 'lookup'];
    const draft = { template: template('v1'), provider: 'up', model: 'gpt-eval', tools };
    const [ofDraft, ofStaging] = await Promise.all([
      runToEnd(api, { dataset: 'few', target: { draft, prompt: 'subject' }, graders }),
      runToEnd(api, { dataset: 'few', target: { prompt: 'subject', environment: 'staging' }, graders }),
    ]);
    expect(ofDraft).toMatchObject({
      status: 'completed',
      target: { type: 'draft', prompt: 'subject', draft: { ...draft, parameters: {} } },
    });
    expect(ofStaging).toMatchObject({
      status: 'completed',
      target: { type: 'version', prompt: 'subject', version: 2, environment: 'staging' },
    });
    const linesOf = await usageByEnvironment(api);
    for (const [run, version] of [
      [ofDraft, 'v1'],
      [ofStaging, 'v2'],
    ]) {
      const items = await walk(api, `/v2/evals/runs/${run.id}/items`);
      const latencyOf = (id: string) => items.find((item) => item.itemId === id).latencyMs;
      expect(items).toEqual(ids.map((id, i) => expectedRunItem(id, ns[i], replyOf(version, ns[i]), latencyOf(id), graders)).sort(byItemId));
      await expectTotalsOfItems(t, p.projectId, run, items, graders);
      expect(sumOf(linesOf(`eval-${run.id}`).map((row: any) => row.calls))).toBe(ns.length);
      expect(sumOf(linesOf(`eval-${run.id}`).map((row: any) => Number(row.costUsd)))).toBe(run.usage.costUsd);
      expect((await api.get(`/v2/logs?environment=eval-${run.id}`).expect(200)).body.data).toHaveLength(ns.length);
    }
    const stored = await t.dataSource.query('SELECT id, prompt_version_id FROM eval_runs WHERE project_id = $1 AND id IN ($2, $3)', [
      p.projectId,
      ofDraft.id,
      ofStaging.id,
    ]);
    expect(stored.find((row: any) => row.id === ofDraft.id).prompt_version_id).toBeNull();
    expect(stored.find((row: any) => row.id === ofStaging.id).prompt_version_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('starts one run for two requests with the same Idempotency-Key', async () => {
    const body = { dataset: 'few', target: { prompt: 'subject', version: 1 }, graders: ['exact'], name: 'once' };
    const first = await api.post('/v2/evals/runs', body).set('Idempotency-Key', 'run-once').expect(200);
    const again = await api.post('/v2/evals/runs', body).set('Idempotency-Key', 'run-once').expect(200);
    expect([again.body.id, again.headers['idempotent-replayed']]).toEqual([first.body.id, 'true']);
    const rows = await t.dataSource.query(`SELECT id FROM eval_runs WHERE project_id = $1 AND name = 'once'`, [p.projectId]);
    expect(rows).toEqual([{ id: first.body.id }]);
    expect((await waitForRun(api, first.body.id)).progress).toEqual({ total: 6, completed: 6, errored: 0, passed: 4 });
  });

  it('runs the dataset version it names: an older one keeps the items a later removal took out', async () => {
    const ids = (await api.get('/v2/datasets/few/items').expect(200)).body.data.map((item: any) => item.id);
    await api.delete(`/v2/datasets/few/items/${ids[0]}`).expect(200);
    const runOn = (datasetVersion?: number) =>
      runToEnd(api, { dataset: 'few', datasetVersion, target: { prompt: 'subject', version: 1 }, graders: ['exact'] });
    const [older, current] = [await runOn(1), await runOn()];
    expect([older.dataset, older.progress.total, current.dataset, current.progress.total]).toEqual([
      { name: 'few', version: 1 },
      6,
      { name: 'few', version: 2 },
      5,
    ]);
    expect((await walk(api, `/v2/evals/runs/${older.id}/items`)).map((item) => item.itemId)).toEqual(ids);
    expect((await walk(api, `/v2/evals/runs/${current.id}/items`)).map((item) => item.itemId)).toEqual(ids.slice(1));
    // What cannot run is refused when the run is created, not failed item by item.
    const refused = async (change: object) => {
      const res = await api.post('/v2/evals/runs', {
        dataset: 'few',
        target: { prompt: 'subject', version: 1 },
        graders: ['exact'],
        ...change,
      });
      return [res.status, res.body.error?.details];
    };
    expect(await refused({ datasetVersion: 3 })).toEqual([400, ['datasetVersion: dataset "few" has no version 3']]);
    expect(await refused({ target: { prompt: 'subject', version: 9 } })).toEqual([400, ['target: "subject" has no version 9']]);
    expect(await refused({ graders: ['exact', 'nope'] })).toEqual([400, ['graders: no grader named "nope" in this project']]);
    const judge = { name: 'j2', config: { type: 'model', prompt: 'nobody' } };
    expect(await refused({ graders: [judge] })).toEqual([400, ['graders: the judge of "j2", nobody@production, is not deployed']]);
  });

  it('cancels a run whose upstream hangs: its calls closed within a second, no new one; a queued run never starts', async () => {
    await deploy(t, p, { slug: 'stuck', provider: 'up', model: 'gpt-eval', template: template('hang') });
    await dataset(
      'stuck-set',
      Array.from({ length: 12 }, (_, n) => ({ variables: { n } })),
    );
    const seen = up.requests.length;
    const start = async (concurrency: number) =>
      (
        await api
          .post('/v2/evals/runs', { dataset: 'stuck-set', target: { prompt: 'stuck', version: 1 }, graders: ['exact'], concurrency })
          .expect(200)
      ).body;
    const arrived = async (count: number) => {
      for (let i = 0; up.requests.length - seen < count && i < 500; i++) await sleep(10);
      await sleep(100);
      expect(up.requests.length - seen).toBe(count);
    };
    const statusOf = async (run: any) => (await api.get(`/v2/evals/runs/${run.id}`).expect(200)).body.status;
    const cancel = async (run: any) => (await api.post(`/v2/evals/runs/${run.id}/cancel`).expect(200)).body;
    const a = await start(3);
    await arrived(3);
    const b = await start(1);
    await arrived(4);
    expect([await statusOf(a), await statusOf(b)]).toEqual(['running', 'running']);
    // EVAL_RUNS_CONCURRENCY is 2: a third run waits in the queue, and cancelled there never starts.
    const c = await start(1);
    await sleep(200);
    expect(await statusOf(c)).toBe('queued');
    expect(await cancel(c)).toMatchObject({ status: 'cancelled', startedAt: null });

    const [ofA, ofB] = [up.requests.slice(seen, seen + 3), up.requests.slice(seen + 3)];
    const cancelledAt = Date.now();
    expect(await cancel(a)).toMatchObject({ id: a.id, status: 'cancelled' });
    for (let i = 0; ofA.some((r) => r.closedAt === null) && i < 200; i++) await sleep(10);
    const closedSoon = (r: { closedEarly: boolean; closedAt: number | null }) => r.closedEarly && r.closedAt! - cancelledAt < 1000;
    expect([...ofA.map(closedSoon), ofB[0].closedAt]).toEqual([true, true, true, null]);
    await sleep(300);
    expect(up.requests.length - seen).toBe(4);
    await cancel(b);
    for (let i = 0; ofB[0].closedAt === null && i < 200; i++) await sleep(10);
    expect(ofB[0].closedEarly).toBe(true);

    const job = (run: any) => t.dataSource.query('SELECT id FROM response_jobs WHERE project_id = $1 AND id = $2', [p.projectId, run.id]);
    for (const run of [a, b, c]) {
      const final = await waitForRun(api, run.id, ['cancelled']);
      expect(final).toMatchObject({ status: 'cancelled', progress: { total: 12, completed: 0, errored: 0, passed: 0 } });
      const items = await t.dataSource.query('SELECT item_id FROM eval_run_items WHERE project_id = $1 AND run_id = $2', [
        p.projectId,
        run.id,
      ]);
      expect(items).toEqual([]);
      for (let i = 0; (await job(run)).length > 0 && i < 100; i++) await sleep(20);
      expect(await job(run)).toEqual([]);
    }
    expectResourceError(await api.post('/v2/evals/runs/01a00000-0000-7000-8000-000000000000/cancel'), 404, 'Run not found');
  });

  it('refuses a deploy to a gated environment without a passing run, admits it after one; both outcomes are audited', async () => {
    const ask = async () =>
      (await api.post(invokePath(p, 'gated', 'preview'), { variables: { q: 'zeta' } }).expect(200)).body.choices[0].message.content;
    const [v1, failing, passing] = [await version('{{q}}?', ['preview']), await version('{{q}}!'), await version('{{q}}')];
    await dataset(
      'gate-set',
      ['alpha', 'beta'].map((q) => ({ variables: { q }, expected: q })),
    );
    await put('/v2/graders/gate-exact', { config: { type: 'equals' } }).expect(200);
    const gate = { dataset: 'gate-set', minScores: { 'gate-exact': 1 } };
    expect((await put('/v2/environments/preview/gate', gate).expect(200)).body).toEqual({ environment: 'preview', ...gate });
    const runOf = (target: object) => runToEnd(api, { dataset: 'gate-set', target, graders: ['gate-exact'] });

    // A passing draft of the same content does not count: a draft is not a version.
    expect(
      (await runOf({ draft: { template: [{ role: 'user', content: '{{q}}' }], model: 'echo' }, prompt: 'gated' })).graders[0].meanScore,
    ).toBe(1);
    expect(await refusal(passing)).toEqual([noRun(passing, 'gate-set')]);
    const low = await runOf({ prompt: 'gated', version: failing });
    const below = `grader "gate-exact": mean score 0 in run ${low.id} is below 1`;
    expect(await refusal(failing)).toEqual([below]);
    expect(await ask()).toBe('zeta?');
    const high = await runOf({ prompt: 'gated', version: passing });
    await deployTo(passing).expect(200);
    expect(await ask()).toBe('zeta');
    await deployTo(v1).expect(200);
    expect(await ask()).toBe('zeta?');

    const audit = (await api.get('/v2/audit?action=deployment.gate_checked').expect(200)).body.data;
    const checked = { prompt: 'gated', environment: 'preview', dataset: 'gate-set' };
    expect(audit.map((event: any) => [event.resourceId, event.after])).toEqual([
      ['gated@preview', { outcome: 'passed', ...checked, version: v1, reason: 'deployed in this environment before' }],
      ['gated@preview', { outcome: 'passed', ...checked, version: passing, run: high.id, scores: { 'gate-exact': 1 } }],
      ['gated@preview', { outcome: 'refused', ...checked, version: failing, run: low.id, scores: { 'gate-exact': 0 }, missing: [below] }],
      ['gated@preview', { outcome: 'refused', ...checked, version: passing, missing: [noRun(passing, 'gate-set')] }],
    ]);
  });

  it('refuses to delete the dataset a deploy gate names, and keeps the gate', async () => {
    const refused = await api.delete('/v2/datasets/gate-set');
    expect([refused.status, refused.body]).toEqual([
      409,
      { error: { message: 'Dataset "gate-set" is the deploy gate\'s dataset of preview: remove or change the gate first' } },
    ]);
    expect((await api.get('/v2/environments/preview/gate').expect(200)).body.dataset).toBe('gate-set');
    expect((await api.get('/v2/datasets/gate-set')).status).toBe(200);
  });
});
