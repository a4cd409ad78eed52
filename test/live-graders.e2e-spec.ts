import OpenAI from 'openai';

import { samplePoint } from '../src/project-settings/live-graders';
import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, listen, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Live graders (docs/experiments.md, "Live graders") through HTTP on a real database: the setting's
 * 400s, calls through the spec's invoke route and /v1/chat/completions (the official `openai`
 * client) sampled by their log id, graded by the job queue's worker, their scores in GET
 * /v2/feedback and in the split's per-arm results; calls with doNotRecord and the judges' own calls
 * never graded; a grader deleted after the setting named it grades nothing.
 *
 * `reply` is a 50/50 split whose v1 answers only the first word of the question (max_tokens 1,
 * counted in words by local/echo) and v2 all of it: `says-answer` (the word "answer" in the reply)
 * scores v1's calls false and v2's true. `quarter` is a model grader whose judge (local/echo) always
 * answers "Score 0.25 …".
 */
describe('live graders', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  /** Recorded calls of reply (log id → the version that served it), of helper (an assistant), of many and of gone. */
  const reply = new Map<string, number>();
  const helper: string[] = [];
  const many: string[] = [];
  const gone: string[] = [];
  const unrecorded: string[] = [];

  const as = () => ({ 'X-API-Key': p.key });
  const settings = (body: object) => t.http().patch('/v2/settings').set(as()).send(body);
  const putGrader = (name: string, config: object) =>
    t
      .http()
      .put(`/v2/graders/${name}`)
      .set(as())
      .send({ config })
      .expect((res) => expect([200, 201]).toContain(res.status));
  const invoke = (slug: string, body: object) => t.http().post(invokePath(p, slug)).set(as()).send(body).expect(200);
  const feedbackOf = async (logId: string) =>
    (await t.http().get('/v2/feedback').query({ logId }).set(as()).expect(200)).body.data as Array<Record<string, any>>;
  const graded = async () =>
    Number(
      (await t.dataSource.query(`SELECT count(*)::int AS n FROM feedback WHERE project_id = $1 AND source = 'grader'`, [p.projectId]))[0].n,
    );
  const jobsLeft = async () =>
    Number(
      (
        await t.dataSource.query(`SELECT count(*)::int AS n FROM response_jobs WHERE project_id = $1 AND kind = 'live_grade'`, [
          p.projectId,
        ])
      )[0].n,
    );
  const inParallel = async (count: number, work: (i: number) => Promise<void>, concurrency = 8) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await work(next++);
      }),
    );
  };
  /** Calls of many whose point is below 0.5: what `half` (share 0.5) grades, exactly. */
  const halfOfMany = () => many.filter((id) => samplePoint(id) < 0.5);

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await deploy(t, p, { slug: 'judge', template: [{ role: 'user', content: 'Score 0.25 for: {{output}}' }] });
    await deploy(t, p, { slug: 'reply', parameters: { max_tokens: 1 } });
    await deploy(t, p, { slug: 'reply' });
    const split = { environment: 'production', split: [1, 2].map((version) => ({ version, weight: 50 })), stickyBy: 'none' };
    await t.http().post('/v2/prompts/reply/deployments').set(as()).send(split).expect(200);
    await deploy(t, p, { slug: 'helper', kind: 'assistant' });
    await deploy(t, p, { slug: 'many' });
    await deploy(t, p, { slug: 'gone' });
    await putGrader('says-answer', { type: 'regex', pattern: 'answer' });
    await putGrader('quarter', { type: 'model', prompt: 'judge' });
    await putGrader('half', { type: 'regex', pattern: '.' });
    await putGrader('temp', { type: 'regex', pattern: '.' });
    await settings({
      liveGraders: [
        // No prompt or environment: every deployed call of the project, the judges' own included were they sampled.
        { grader: 'says-answer', share: 1 },
        { grader: 'quarter', share: 1, prompt: 'reply', environment: 'production' },
        { grader: 'half', share: 0.5, prompt: 'many' },
        { grader: 'temp', share: 1, prompt: 'gone' },
      ],
    }).expect(200);

    const question = (i: number) => ({ messages: [{ role: 'user' as const, content: `good answer call ${i}` }] });
    await inParallel(30, async (i) => {
      const res = await invoke('reply', question(i));
      reply.set(res.headers['x-parley-log-id'], Number(res.headers['x-parley-version']));
    });
    const heard = (response: Response) =>
      reply.set(response.headers.get('x-parley-log-id')!, Number(response.headers.get('x-parley-version')));
    for (let i = 0; i < 5; i++) {
      const answered = await openai.chat.completions.create({ model: 'reply@production', ...question(100 + i) }).withResponse();
      expect(answered.data.choices[0].message.content).toMatch(/^good/);
      heard(answered.response);
      const streamed = await openai.chat.completions
        .create({ model: 'reply@production', ...question(110 + i), stream: true })
        .withResponse();
      let text = '';
      for await (const chunk of streamed.data) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toMatch(/^good/);
      heard(streamed.response);
    }
    for (let i = 0; i < 2; i++)
      unrecorded.push((await invoke('reply', { ...question(200 + i), doNotRecord: true })).headers['x-parley-log-id']);
    const hidden = await openai.chat.completions
      .create({ model: 'reply@production', ...question(300) }, { headers: { 'x-parley-do-not-record': 'true' } })
      .withResponse();
    unrecorded.push(hidden.response.headers.get('x-parley-log-id')!);
    const opened = await invoke('helper', { messages: [{ role: 'user', content: 'first answer' }] });
    helper.push(opened.headers['x-parley-log-id']);
    const threadId = opened.headers['x-parley-thread-id'];
    helper.push((await invoke('helper', { threadId, messages: [{ role: 'user', content: 'second' }] })).headers['x-parley-log-id']);
    await inParallel(200, async (i) => {
      many.push((await invoke('many', { messages: [{ role: 'user', content: `item ${i}` }] })).headers['x-parley-log-id']);
    });
    // Deleted after the setting named it: its calls are sampled, their jobs find no grader.
    await t.http().delete('/v2/graders/temp').set(as()).expect(200);
    for (let i = 0; i < 3; i++)
      gone.push((await invoke('gone', { messages: [{ role: 'user', content: `gone ${i}` }] })).headers['x-parley-log-id']);

    // says-answer on every recorded call, quarter on reply's, half on half of many's; temp on none.
    const expected = reply.size * 2 + helper.length + many.length + halfOfMany().length + gone.length;
    for (let i = 0; (await graded()) < expected || (await jobsLeft()) > 0; i++) {
      if (i > 1200) throw new Error(`live grading did not finish: ${await graded()} of ${expected} scores, ${await jobsLeft()} jobs left`);
      await sleep(50);
    }
    await sleep(300);
  }, 300_000);
  afterAll(() => t.close());

  it('scores every recorded call of reply, through either surface, streamed or not: feedback on its log, source "grader"', async () => {
    expect(reply.size).toBe(40);
    for (const [logId, version] of reply) {
      const rows = await feedbackOf(logId);
      expect(rows.map((row) => [row.name, row.value, row.source, row.version]).sort()).toEqual([
        ['quarter', 0.25, 'grader', version],
        ['says-answer', version === 2, 'grader', version],
      ]);
      const check = rows.find((row) => row.name === 'says-answer')!;
      expect(check).toMatchObject({ target: { type: 'log', id: logId }, logId, prompt: 'reply', environment: 'production' });
      expect(check.comment).toBe(version === 2 ? 'matches /answer/' : 'does not match /answer/');
      expect(rows.find((row) => row.name === 'quarter')!.comment).toMatch(/^Score 0\.25 for: good/);
    }
    // The assistant's calls too (their log is written with the thread's turns).
    for (const logId of helper)
      expect((await feedbackOf(logId)).map((row) => [row.name, row.value])).toEqual([['says-answer', logId === helper[0]]]);
  });

  it('a call made with doNotRecord is never graded: no feedback, no judge call about it', async () => {
    expect(unrecorded).toHaveLength(3);
    for (const logId of unrecorded) expect(await feedbackOf(logId)).toEqual([]);
    const judged: Array<{ log: string }> = await t.dataSource.query(
      `SELECT metadata->>'parley_live_log' AS log FROM request_logs WHERE project_id = $1 AND environment = 'live-graders'`,
      [p.projectId],
    );
    expect(judged.filter((row) => unrecorded.includes(row.log))).toEqual([]);
  });

  it('share 0.5: exactly the calls whose log id hashes below 0.5, about half of 200', async () => {
    const expected = new Set(halfOfMany());
    expect(expected.size).toBeGreaterThan(70);
    expect(expected.size).toBeLessThan(130);
    const rows: Array<{ log_id: string }> = await t.dataSource.query(
      `SELECT log_id FROM feedback WHERE project_id = $1 AND name = 'half' AND source = 'grader'`,
      [p.projectId],
    );
    expect(new Set(rows.map((row) => row.log_id))).toEqual(expected);
  });

  it("the per-arm results show each grader's mean per arm, and a verdict on says-answer", async () => {
    const body = (await t.http().get('/v2/prompts/reply/deployments/production/results').set(as()).expect(200)).body;
    for (const arm of body.arms) {
      const n = [...reply.values()].filter((version) => version === arm.version).length;
      expect(n).toBeGreaterThan(2);
      const byName = Object.fromEntries(arm.feedback.map((row: any) => [row.name, row]));
      expect(byName['says-answer']).toMatchObject({ kind: 'boolean', count: n, n, mean: arm.version === 2 ? 1 : 0 });
      expect(byName.quarter).toMatchObject({ kind: 'number', count: n, n, mean: 0.25 });
    }
    expect(body.verdicts.find((v: any) => v.name === 'says-answer')).toMatchObject({ version: 2, control: 1, better: 'higher', winner: 2 });
  });

  it("the judges' calls are logged under live-graders, one per graded call, as the project (no key), and never graded", async () => {
    const logs = (await t.http().get('/v2/logs').query({ environment: 'live-graders', limit: 100 }).set(as()).expect(200)).body.data;
    expect(logs).toHaveLength(reply.size);
    const rows: Array<{ id: string; log: string; grader: string; api_key_id: string | null; prompt_slug: string }> =
      await t.dataSource.query(
        `SELECT id, metadata->>'parley_live_log' AS log, metadata->>'parley_live_grader' AS grader, api_key_id, prompt_slug
         FROM request_logs WHERE project_id = $1 AND environment = 'live-graders'`,
        [p.projectId],
      );
    expect(rows.map((row) => row.log).sort()).toEqual([...reply.keys()].sort());
    expect(new Set(rows.map((row) => `${row.grader} ${row.prompt_slug} ${row.api_key_id}`))).toEqual(new Set(['quarter judge null']));
    // says-answer names no prompt or environment, yet the judges' calls have no feedback: they are not live traffic.
    const onJudges = await t.dataSource.query('SELECT id FROM feedback WHERE project_id = $1 AND log_id = ANY($2::uuid[])', [
      p.projectId,
      `{${rows.map((row) => row.id).join(',')}}`,
    ]);
    expect(onJudges).toEqual([]);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const usage = (await t.http().get('/v2/usage').query({ from, bucket: 'day', group_by: 'environment' }).set(as()).expect(200)).body;
    const judges = usage.data.filter((row: any) => row.environment === 'live-graders');
    expect(judges.reduce((sum: number, row: any) => sum + row.calls, 0)).toBe(reply.size);
  });

  it("a grader deleted after the setting named it: its jobs complete with the other graders' scores only", async () => {
    for (const logId of gone) expect((await feedbackOf(logId)).map((row) => row.name)).toEqual(['says-answer']);
    expect(await jobsLeft()).toBe(0);
  });

  it('GET /v2/settings answers the entries; the change was audited', async () => {
    const body = (await t.http().get('/v2/settings').set(as()).expect(200)).body;
    expect(body).toEqual({
      object: 'project.settings',
      recordEmbeddingInputs: true,
      liveGraders: [
        { grader: 'says-answer', share: 1 },
        { grader: 'quarter', share: 1, prompt: 'reply', environment: 'production' },
        { grader: 'half', share: 0.5, prompt: 'many' },
        { grader: 'temp', share: 1, prompt: 'gone' },
      ],
      updatedAt: expect.any(String),
    });
    const audit = await t.http().get('/v2/audit').query({ resourceType: 'settings' }).set(as()).expect(200);
    expect(audit.body.data[0]).toMatchObject({
      action: 'settings.updated',
      before: { recordEmbeddingInputs: true, liveGraders: [] },
      after: { recordEmbeddingInputs: true, liveGraders: body.liveGraders },
    });
  });

  it('400 for a bad shape, an unknown grader, and a check that needs an expected output; nothing changes', async () => {
    const before = (await t.http().get('/v2/settings').set(as()).expect(200)).body;
    const refused = async (liveGraders: unknown) => (await settings({ liveGraders }).expect(400)).body;
    for (const bad of [
      { grader: 'says-answer', share: 0 },
      { grader: 'says-answer', share: 1.5 },
      { grader: 'says-answer' },
      { grader: 'Says Answer', share: 1 },
      { grader: 'says-answer', share: 1, prompt: 'Not a slug' },
      { grader: 'says-answer', share: 1, model: 'gpt-4o' },
    ]) {
      expect(await refused([bad])).toMatchObject({
        error: { message: 'Invalid request body', details: [expect.stringContaining('liveGraders')] },
      });
    }
    expect(await refused({ grader: 'says-answer', share: 1 })).toMatchObject({ error: { message: 'Invalid request body' } });
    expect(await refused(Array.from({ length: 21 }, () => ({ grader: 'says-answer', share: 1 })))).toMatchObject({
      error: { details: [expect.stringContaining('at most 20')] },
    });

    await putGrader('exact', { type: 'equals' });
    await putGrader('exact-yes', { type: 'equals', value: 'yes' });
    await putGrader('has', { type: 'contains', ignoreCase: true });
    await putGrader('path', { type: 'json_path', path: '$.a' });
    const problems = await refused([
      { grader: 'nope', share: 1 },
      { grader: 'exact', share: 1 },
      { grader: 'exact-yes', share: 1 },
      { grader: 'has', share: 0.5 },
      { grader: 'path', share: 0.5 },
    ]);
    expect(problems).toEqual({
      error: {
        message: 'Invalid request body',
        details: [
          'liveGraders[0].grader: no grader named "nope" in this project',
          'liveGraders[1].grader: "exact" is an equals grader without a `value` of its own: it compares with a dataset item\'s expected output, which a live call does not have',
          'liveGraders[3].grader: "has" is a contains grader without a `values` of its own: it compares with a dataset item\'s expected output, which a live call does not have',
          'liveGraders[4].grader: "path" is a json_path grader without a `value` of its own: it compares with a dataset item\'s expected output, which a live call does not have',
        ],
      },
    });
    expect((await t.http().get('/v2/settings').set(as()).expect(200)).body).toEqual(before);
  });
  it('a job whose instance stopped is queued again by another and graded; one that stopped three times is dropped', async () => {
    await putGrader('late', { type: 'regex', pattern: 'item' });
    // Calls of many that half did not sample: their only grader feedback so far is says-answer's.
    const [again, dropped] = many.filter((id) => samplePoint(id) >= 0.5);
    const [{ workspace_id: workspaceId }] = await t.dataSource.query('SELECT workspace_id FROM projects WHERE id = $1', [p.projectId]);
    const request = JSON.stringify({ graders: ['late'], workspaceId, workspaceSlug: p.workspace, projectSlug: p.project });
    for (const [id, attempts] of [
      [again, 1],
      [dropped, 3],
    ] as const) {
      await t.dataSource.query(
        `INSERT INTO response_jobs (kind, project_id, id, state, background, request, lease_owner, lease_expires_at, attempts, created_at)
         VALUES ('live_grade', $1, $2, 'running', false, $3, 'live-grades-gone', now() - interval '1 second', $4, now())`,
        [p.projectId, id, request, attempts],
      );
    }
    for (let i = 0; (await jobsLeft()) > 0; i++) {
      if (i > 400) throw new Error('the jobs of the stopped instance were never taken over');
      await sleep(50);
    }
    expect((await feedbackOf(again)).map((row) => [row.name, row.value]).sort()).toEqual([
      ['late', true],
      ['says-answer', false],
    ]);
    expect((await feedbackOf(dropped)).map((row) => row.name)).toEqual(['says-answer']);
  }, 60_000);
});
