import OpenAI from 'openai';

import { uuidOfResponseId } from '../src/common/ids';
import { createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectIsoDateTime, UUID } from './support/http';
import { deploy, INVOKE_APP_ENV, invokePath, listen, sleep } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * Feedback (docs/experiments.md, "Feedback") through HTTP on a real database: targets resolved to
 * the version that served them, one feedback per target, name and source (replaced, never
 * doubled, in the rows and in the rollup), another project's targets not found, the body's 400s,
 * the scopes, the list's filters and pages, and the summary against a hand computation.
 */
describe('feedback', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  let api: Client;
  let openai: OpenAI;
  /** Logs of fb-prompt: v1 (3 calls), then v2 (2 calls). */
  const v1: string[] = [];
  const v2: string[] = [];
  let thread: { id: string; logs: string[] };
  let response: string;
  let streamed: string;
  let direct: string;
  let background: string;
  let appKey: { key: string; id: string };

  const invoke = async (q: TestProject, slug: string, body: object = {}) => {
    const res = await t.http().post(invokePath(q, slug)).set('X-API-Key', q.key).send(body).expect(200);
    return { logId: res.headers['x-parley-log-id'] as string, threadId: res.headers['x-parley-thread-id'] as string | undefined };
  };
  const makeKey = async (q: TestProject, body: object) =>
    (
      await t
        .http()
        .post(`/v2/workspaces/${q.workspace}/projects/${q.project}/api-keys`)
        .set('X-API-Key', TEST_ADMIN_KEY)
        .send({ name: 'k', ...body })
        .expect(200)
    ).body as { key: string; id: string };
  const give = (body: object, key = p.key) => t.http().post('/v2/feedback').set('X-API-Key', key).send(body);
  const rollups = (projectId = p.projectId) =>
    t.dataSource.query(
      `SELECT prompt_slug, version, name, total, numbers, booleans, value_sum::text AS sum, value_sum_squares::text AS squares, categories
         FROM feedback_rollups WHERE project_id = $1 ORDER BY prompt_slug, version, name`,
      [projectId],
    );

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    [p, other] = [await createProject(t), await createProject(t)];
    api = client(t, p.key);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    const say = { messages: [{ role: 'user', content: 'hi' }] };
    await deploy(t, p, { slug: 'fb-prompt' });
    for (let i = 0; i < 3; i++) v1.push((await invoke(p, 'fb-prompt', say)).logId);
    await deploy(t, p, { slug: 'fb-prompt' });
    for (let i = 0; i < 2; i++) v2.push((await invoke(p, 'fb-prompt', say)).logId);
    await deploy(t, p, { slug: 'fb-assistant', kind: 'assistant' });
    const first = await invoke(p, 'fb-assistant', say);
    const second = await invoke(p, 'fb-assistant', { ...say, threadId: first.threadId });
    thread = { id: first.threadId!, logs: [first.logId, second.logId] };
    response = (await openai.responses.create({ prompt: { id: 'fb-prompt' }, input: 'hello' })).id;
    const stream = await openai.responses.create({ prompt: { id: 'fb-prompt' }, input: 'streamed', stream: true });
    for await (const event of stream) if (event.type === 'response.completed') streamed = event.response.id;
    direct = (await openai.responses.create({ model: 'local/echo', input: 'direct' })).id;
    background = (await openai.responses.create({ prompt: { id: 'fb-prompt' }, input: 'later', background: true })).id;
    for (let i = 0; (await openai.responses.retrieve(background)).status !== 'completed'; i++) {
      if (i > 200) throw new Error(`background response ${background} did not complete`);
      await sleep(25);
    }
    appKey = await makeKey(p, { preset: 'app' });
  });
  afterAll(() => t.close());

  it('201 with the stored feedback on a log: the version that served it, the key as its source', async () => {
    const res = await give({ logId: v1[0], name: 'rating', value: 4, comment: 'good enough' }).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      object: 'feedback',
      target: { type: 'log', id: v1[0] },
      logId: v1[0],
      threadId: null,
      responseId: null,
      prompt: 'fb-prompt',
      environment: 'production',
      version: 1,
      name: 'rating',
      value: 4,
      comment: 'good enough',
      source: p.keyId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expectIsoDateTime(res.body.createdAt);
  });

  it('sent again: the same id, the value and comment replaced, the rollup updated and not doubled', async () => {
    const before = (await give({ logId: v1[0], name: 'rating', value: 4 }).expect(201)).body;
    const again = (await give({ logId: v1[0], name: 'rating', value: 2 }).expect(201)).body;
    expect(again).toMatchObject({ id: before.id, value: 2, comment: null, createdAt: before.createdAt });
    const rows = await t.dataSource.query('SELECT id FROM feedback WHERE project_id = $1 AND target_id = $2 AND name = $3', [
      p.projectId,
      v1[0],
      'rating',
    ]);
    expect(rows).toEqual([{ id: before.id }]);
    expect(await rollups()).toEqual([
      expect.objectContaining({ version: 1, name: 'rating', total: 1, numbers: 1, sum: '2', squares: '4' }),
    ]);
  });

  it('values of each kind on each target; a kind replaced by another moves between the sums', async () => {
    await give({ logId: v1[1], name: 'rating', value: 5 }).expect(201);
    await give({ logId: v1[2], name: 'rating', value: 3 }).expect(201);
    await give({ logId: v1[1], name: 'rating', value: 1 }, appKey.key).expect(201); // another source: a second feedback
    for (const [logId, value] of [
      [v1[0], true],
      [v1[1], true],
      [v1[2], 'maybe'],
      [v1[2], false],
    ] as const) {
      await give({ logId, name: 'helpful', value }).expect(201);
    }
    await give({ logId: v2[0], name: 'issue', value: 'too_long' }).expect(201);
    await give({ logId: v2[1], name: 'issue', value: 'wrong tone' }).expect(201);
    await give({ logId: v2[1], name: 'issue', value: 'too_long' }).expect(201);

    const onThread = await give({ threadId: thread.id, name: 'helpful', value: true }).expect(201);
    expect(onThread.body).toMatchObject({ target: { type: 'thread', id: thread.id }, logId: thread.logs[1], threadId: thread.id });
    expect(onThread.body).toMatchObject({ prompt: 'fb-assistant', environment: 'production', version: 1 });

    const [{ log_id }] = await t.dataSource.query('SELECT log_id FROM responses WHERE project_id = $1 AND id = $2', [
      p.projectId,
      uuidOfResponseId(response),
    ]);
    expect(log_id).toEqual(expect.stringMatching(UUID));
    const onResponse = await give({ responseId: response, name: 'helpful', value: true }).expect(201);
    expect(onResponse.body).toMatchObject({ target: { type: 'response', id: response }, responseId: response, logId: log_id, version: 2 });
    const onStream = await give({ responseId: streamed, name: 'helpful', value: false }).expect(201);
    expect(onStream.body).toMatchObject({ logId: expect.stringMatching(UUID), prompt: 'fb-prompt', version: 2 });
    await give({ logId: v2[0], name: 'helpful', value: true }).expect(201);
    await give({ logId: v2[1], name: 'helpful', value: true }).expect(201);
    // A direct provider call: no version served it, so no rollup.
    const onBackground = await give({ responseId: background, name: 'background', value: 7 }).expect(201);
    expect(onBackground.body).toMatchObject({ logId: expect.stringMatching(UUID), prompt: 'fb-prompt', version: 2 });
    const onDirect = await give({ responseId: direct, name: 'helpful', value: true }).expect(201);
    expect(onDirect.body).toMatchObject({ prompt: 'local/echo', version: null });

    expect(await rollups()).toEqual([
      expect.objectContaining({ prompt_slug: 'fb-assistant', version: 1, name: 'helpful', total: 1, booleans: 1, sum: '1' }),
      expect.objectContaining({ version: 1, name: 'helpful', total: 3, numbers: 0, booleans: 3, sum: '2', squares: '2', categories: {} }),
      expect.objectContaining({ version: 1, name: 'rating', total: 4, numbers: 4, sum: '11', squares: '39' }),
      expect.objectContaining({ version: 2, name: 'background', total: 1, numbers: 1, sum: '7', squares: '49' }),
      expect.objectContaining({ version: 2, name: 'helpful', total: 4, booleans: 4, sum: '3' }),
      expect.objectContaining({ version: 2, name: 'issue', total: 2, numbers: 0, booleans: 0, sum: '0', categories: { too_long: 2 } }),
    ]);
  });

  it("the console's session is a source of its own", async () => {
    const signIn = await t.http().post('/v2/console/session').send({ key: p.key }).expect(200);
    const cookie = (signIn.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('parley_session='))!.split(';')[0];
    const send = () => t.http().post('/v2/feedback').set('Cookie', cookie).set('X-Parley-CSRF', '1');
    const res = await send().send({ logId: v2[0], name: 'reviewed', value: true }).expect(201);
    expect(res.body.source).toBe('console');
    expect((await send().send({ logId: v2[0], name: 'reviewed', value: false }).expect(201)).body.id).toBe(res.body.id);
  });

  it("404 for another project's log, thread and response, and for unknown or deleted ones", async () => {
    await deploy(t, other, { slug: 'fb-other', kind: 'assistant' });
    const foreign = await invoke(other, 'fb-other', { messages: [{ role: 'user', content: 'x' }] });
    const notFound = (message: string) => ({ error: { message } });
    expect((await give({ logId: foreign.logId, name: 'x', value: 1 }).expect(404)).body).toEqual(notFound('Request log not found'));
    expect((await give({ threadId: foreign.threadId, name: 'x', value: 1 }).expect(404)).body).toEqual(notFound('Thread not found'));
    const foreignResponse = await new OpenAI({ baseURL: openai.baseURL, apiKey: other.key, maxRetries: 0 }).responses.create({
      model: 'local/echo',
      input: 'theirs',
    });
    expect((await give({ responseId: foreignResponse.id, name: 'x', value: 1 }).expect(404)).body).toEqual(notFound('Response not found'));
    await give({ logId: '01990000-0000-7000-8000-000000000000', name: 'x', value: 1 }).expect(404);
    const gone = await createThread(t, p);
    await api.delete(`/v2/threads/${gone.id}`).expect(200);
    await give({ threadId: gone.id, name: 'x', value: 1 }).expect(404);
    await openai.responses.delete(direct);
    await give({ responseId: direct, name: 'x', value: 1 }).expect(404);
  });

  it.each([
    [
      'two targets',
      { logId: '01990000-0000-7000-8000-000000000000', threadId: '01990000-0000-7000-8000-000000000001' },
      'Expected exactly one of logId, threadId or responseId',
    ],
    ['no target', {}, 'Expected exactly one of logId, threadId or responseId'],
    [
      'a value of no kind',
      { logId: '01990000-0000-7000-8000-000000000000', value: { stars: 4 } },
      'value: Expected a number, true or false, or a category: 1-64 characters, no control characters',
    ],
    [
      'a name too long',
      { logId: '01990000-0000-7000-8000-000000000000', name: 'n'.repeat(65) },
      'name: Expected a feedback name: 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit',
    ],
    [
      'a comment too long',
      { logId: '01990000-0000-7000-8000-000000000000', comment: 'c'.repeat(2001) },
      'comment: Expected a comment of at most 2000 characters',
    ],
    ['a malformed log id', { logId: 'log-1' }, 'logId: Expected a request log id'],
  ])('400 for %s', async (_case, body, detail) => {
    const res = await give({ name: 'helpful', value: true, ...body }).expect(400);
    expect(res.body).toEqual({ error: { message: 'Invalid request body', details: [detail] } });
  });

  it('403 without feedback:write to give, without logs:read to read; the app preset gives', async () => {
    const viewer = await makeKey(p, { preset: 'viewer' });
    const writer = await makeKey(p, { scopes: ['feedback:write'] });
    const forbidden = (scope: string) => ({ error: 'Forbidden', message: `This API key lacks the scope this endpoint needs: ${scope}` });
    expect((await give({ logId: v1[0], name: 'x', value: 1 }, viewer.key).expect(403)).body).toEqual(forbidden('feedback:write'));
    expect((await t.http().get('/v2/feedback').set('X-API-Key', writer.key).expect(403)).body).toEqual(forbidden('logs:read'));
    await t.http().get('/v2/feedback/summary?prompt=fb-prompt&environment=production').set('X-API-Key', writer.key).expect(403);
    await give({ logId: v1[0], name: 'x', value: 1 }, writer.key).expect(201);
    await t.http().get('/v2/feedback').set('X-API-Key', viewer.key).expect(200);
  });

  it('lists newest first, by each filter, page by page', async () => {
    const list = async (query: string) => (await api.get(`/v2/feedback?${query}`).expect(200)).body;
    const all = await list('');
    const ids = all.data.map((f: { id: string }) => f.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect((await list(`logId=${v1[0]}`)).data.map((f: { name: string }) => f.name).sort()).toEqual(['helpful', 'rating', 'x']);
    expect((await list(`threadId=${thread.id}`)).data).toEqual([expect.objectContaining({ target: { type: 'thread', id: thread.id } })]);
    expect((await list(`responseId=${response}`)).data).toEqual([expect.objectContaining({ responseId: response })]);
    expect((await list('prompt=fb-prompt&version=2&name=issue')).data.map((f: { value: string }) => f.value)).toEqual([
      'too_long',
      'too_long',
    ]);
    expect((await list('prompt=fb-assistant&environment=production')).data).toHaveLength(1);
    expect((await list('environment=staging')).data).toEqual([]);
    expect((await list('logId=not-a-uuid')).data).toEqual([]);
    const seen: string[] = [];
    let page = await list('limit=4');
    for (;;) {
      seen.push(...page.data.map((f: { id: string }) => f.id));
      if (!page.has_more) break;
      page = await list(`limit=4&after=${page.last_id}`);
    }
    expect(seen).toEqual(ids);
    const params = (details: string[]) => ({ error: { message: 'Invalid request parameters', details } });
    expect((await api.get('/v2/feedback?version=2').expect(400)).body).toEqual(params(['version: needs prompt']));
    expect((await api.get('/v2/feedback?after=x').expect(400)).body).toEqual(params(['after: not a feedback id']));
    await api.get('/v2/feedback?limit=0').expect(400);
  });

  it('summarizes per version and name from the rollups, as computed by hand', async () => {
    const res = await api.get('/v2/feedback/summary?prompt=fb-prompt&environment=production').expect(200);
    expect(res.body).toMatchObject({ object: 'feedback.summary', prompt: 'fb-prompt', environment: 'production' });
    const rows = res.body.data as Array<Record<string, any>>;
    expect(rows.map((r) => [r.version, r.name, r.kind, r.count, r.n])).toEqual([
      [2, 'background', 'number', 1, 1],
      [2, 'helpful', 'boolean', 4, 4],
      [2, 'issue', 'category', 2, 0],
      [2, 'reviewed', 'boolean', 1, 1],
      [1, 'helpful', 'boolean', 3, 3],
      [1, 'rating', 'number', 4, 4],
      [1, 'x', 'number', 1, 1],
    ]);
    const close = (value: number, expected: number) => expect(value).toBeCloseTo(expected, 4);
    // v2 helpful: 3 of 4 true; Wilson [0.3006, 0.9544].
    close(rows[1].mean, 0.75);
    close(rows[1].interval.low, 0.30064);
    close(rows[1].interval.high, 0.95441);
    expect(rows[1].interval.method).toBe('wilson');
    expect(rows[2]).toMatchObject({ mean: null, interval: null, categories: { too_long: 2 } });
    // v1 helpful: 2 of 3 true; Wilson [0.2077, 0.9385].
    close(rows[4].mean, 2 / 3);
    close(rows[4].interval.low, 0.20766);
    close(rows[4].interval.high, 0.93851);
    // v1 rating: 2, 5, 3, 1: mean 2.75, s = 1.70783, t(0.975, 3) = 3.182446, half-width 2.71753: [0.0325, 5.4675].
    close(rows[5].mean, 2.75);
    close(rows[5].interval.low, 0.03247);
    close(rows[5].interval.high, 5.46753);
    expect(rows[5].interval.method).toBe('t');
    expect(rows[6]).toMatchObject({ mean: 1, interval: null });
    expect((await api.get('/v2/feedback/summary?prompt=fb-prompt&environment=staging').expect(200)).body.data).toEqual([]);
    await api.get('/v2/feedback/summary?prompt=fb-prompt').expect(400);
  });

  it('sent many times at once: one row, and a rollup equal to the value that stayed', async () => {
    const answers = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((value) => give({ logId: v2[1], name: 'race', value })));
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((res) => res.body.id)).size).toBe(1);
    const rows = await t.dataSource.query(`SELECT value_number::text AS value FROM feedback WHERE project_id = $1 AND name = 'race'`, [
      p.projectId,
    ]);
    expect(rows).toHaveLength(1);
    const value = Number(rows[0].value);
    expect((await rollups()).filter((r: { name: string }) => r.name === 'race')).toEqual([
      expect.objectContaining({ version: 2, total: 1, numbers: 1, sum: String(value), squares: String(value * value) }),
    ]);
  });
});
