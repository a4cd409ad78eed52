import { walk } from './support/eval-factories';
import { createProject, TestProject } from './support/factories';
import { Client, client, expectIsoDateTime, expectResourceError, UUID } from './support/http';
import { deploy, INVOKE_APP_ENV, invokePath, requestLogRows, threadMessageRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Evaluation datasets through the API (docs/evals.md, "Datasets"): versions made by every change
 * and read back as of any version, JSONL and CSV imports with their per-line problems, keyset
 * paging, and items added from a request log or a thread turn.
 */
describe('evals: datasets', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  let api: Client;

  const user = (content: string) => ({ role: 'user', content });
  const reply = (content: string) => ({ role: 'assistant', content });
  const patch = (path: string, body: object) => t.http().patch(path).set('X-API-Key', p.key).send(body);
  const create = async (name: string) => (await api.post('/v2/datasets', { name }).expect(200)).body;
  /** The items in `version` when each version in `added` added that many. */
  const sumTo = (version: number, added: Map<number, number>) => [...added].reduce((sum, [v, n]) => sum + (v <= version ? n : 0), 0);
  /** An item as listed, without what the server chooses (ids, dates). */
  const content = ({ variables, messages, expected, metadata }: any) => ({ variables, messages, expected, metadata });
  const invalidBody = (res: any, details: string[]) => {
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: { message: 'Invalid request body', details } } });
  };

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    other = await createProject(t);
    api = client(t, p.key);
  });
  afterAll(() => t.close());

  it('creates a dataset at version 0, lists and gets it; a taken name is 409; bad bodies are 400 with the documented body', async () => {
    const created = await create('faq');
    expect(created).toEqual({
      id: expect.stringMatching(UUID),
      object: 'dataset',
      name: 'faq',
      description: '',
      version: 0,
      itemCount: 0,
      createdAt: created.updatedAt,
      updatedAt: expect.any(String),
    });
    expectIsoDateTime(created.createdAt);
    expect((await api.get('/v2/datasets/faq').expect(200)).body).toEqual(created);
    const listed = await api.get('/v2/datasets').expect(200);
    expect(listed.body).toEqual({ object: 'list', data: [created], has_more: false, last_id: 'faq' });
    expect((await client(t, other.key).get('/v2/datasets').expect(200)).body.data).toEqual([]);
    expectResourceError(await client(t, other.key).get('/v2/datasets/faq'), 404, 'Dataset not found');
    expectResourceError(await api.post('/v2/datasets', { name: 'faq' }), 409, 'A dataset named "faq" already exists');

    invalidBody(await api.post('/v2/datasets/faq/items', { items: [] }), ['items: Too small: expected array to have >=1 items']);
    invalidBody(await api.post('/v2/datasets/faq/items', { items: [{ variables: { q: 'x' }, extra: 1 }] }), [
      'items.0: Unrecognized key: "extra"',
    ]);
    invalidBody(await api.post('/v2/datasets/faq/import', { format: 'xml', content: '' }), [
      'format: Invalid option: expected one of "jsonl"|"csv"',
      'content: Too small: expected string to have >=1 characters',
    ]);
    invalidBody(await api.post('/v2/datasets/faq/items/from', { includeAnswer: true }), [
      'Expected either logId, or threadId and messageId',
    ]);
    invalidBody(await api.postRaw('/v2/datasets/faq/items', '[1]'), ['body: expected a JSON object']);
    for (const [query, detail] of [
      ['after=nope', 'after: expected the id of an item'],
      ['version=-1', 'version must be a whole number'],
    ]) {
      const res = await api.get(`/v2/datasets/faq/items?${query}`);
      expect([res.status, res.body]).toEqual([400, { error: { message: 'Invalid request parameters', details: [detail] } }]);
    }
    // None of them made a version.
    expect((await api.get('/v2/datasets/faq').expect(200)).body).toMatchObject({ version: 0, itemCount: 0 });
  });

  it('refuses a body naming both a log and a thread turn', async () => {
    const logId = '01a00000-0000-7000-8000-000000000000';
    invalidBody(await api.post('/v2/datasets/faq/items/from', { logId, messageId: 'm1' }), [
      'Expected either logId, or threadId and messageId',
    ]);
  });

  it('lists the changes of datasets in the audit trail, by their resource type', async () => {
    const byAction = (await api.get('/v2/audit?action=dataset.created&resourceId=faq').expect(200)).body.data;
    expect(byAction.map((e: any) => [e.resourceType, e.action, e.after])).toEqual([
      ['dataset', 'dataset.created', { name: 'faq', description: '' }],
    ]);
    const byType = await api.get('/v2/audit?resourceType=dataset&resourceId=faq');
    expect([byType.status, byType.body.data?.map((e: any) => e.action)]).toEqual([200, ['dataset.created']]);
  });

  it('makes one version per change and lists the items as of any version, after an edit and a removal', async () => {
    await create('cities');
    const a = { variables: { city: 'Paris' }, messages: [user('capital?')], expected: 'France', metadata: { tier: 'gold', n: 1 } };
    const b = { variables: { city: 'Lima' }, messages: [], expected: { country: 'Peru' }, metadata: {} };
    const added = (await api.post('/v2/datasets/cities/items', { items: [a, b] }).expect(200)).body;
    expect(added).toEqual({ version: 1, itemCount: 2, itemIds: [expect.stringMatching(UUID), expect.stringMatching(UUID)] });
    const [idA, idB] = added.itemIds;

    const jsonl = `${JSON.stringify({ variables: { city: 'Oslo', n: 3, ok: true } })}\n\n${JSON.stringify({ expected: 7 })}\r\n`;
    expect((await api.post('/v2/datasets/cities/import', { format: 'jsonl', content: jsonl }).expect(200)).body).toMatchObject({
      version: 2,
      itemCount: 4,
    });
    const csv = 'city,expected,messages,metadata.source\nRome,Italy,"[{""role"":""user"",""content"":""where?""}]",atlas\nBern,,,\n';
    expect((await api.post('/v2/datasets/cities/import', { format: 'csv', content: csv }).expect(200)).body).toMatchObject({
      version: 3,
      itemCount: 6,
    });
    const asOf3 = [
      a,
      b,
      { variables: { city: 'Oslo', n: '3', ok: 'true' }, messages: [], expected: null, metadata: {} },
      { variables: {}, messages: [], expected: 7, metadata: {} },
      { variables: { city: 'Rome' }, messages: [user('where?')], expected: 'Italy', metadata: { source: 'atlas' } },
      { variables: { city: 'Bern' }, messages: [], expected: null, metadata: { source: '' } },
    ];
    const v3 = await walk(api, '/v2/datasets/cities/items?version=3', 4);
    expect(v3.map(content)).toEqual(asOf3);
    expect(v3.map((item) => item.source)).toEqual([
      null,
      null,
      { import: 'jsonl' },
      { import: 'jsonl' },
      { import: 'csv' },
      { import: 'csv' },
    ]);

    // An edit replaces the fields given and keeps the others; the item keeps its id.
    const edited = await patch(`/v2/datasets/cities/items/${idA}`, { variables: { city: 'Rome' } }).expect(200);
    expect(edited.body).toMatchObject({ id: idA, sinceVersion: 4, ...a, variables: { city: 'Rome' } });
    const removed = await api.delete(`/v2/datasets/cities/items/${idB}`).expect(200);
    expect(removed.body).toEqual({ version: 5, itemCount: 5, itemIds: [idB] });
    expectResourceError(await api.delete(`/v2/datasets/cities/items/${idB}`), 404, 'Dataset item not found');

    const versions = (await api.get('/v2/datasets/cities/versions').expect(200)).body.data;
    expect(versions.map((v: any) => [v.version, v.itemCount, v.change])).toEqual([
      [5, 5, 'removed 1 item'],
      [4, 6, 'edited 1 item'],
      [3, 6, 'imported (csv): 2 items'],
      [2, 4, 'imported (jsonl): 2 items'],
      [1, 2, 'added: 2 items'],
      [0, 0, 'created'],
    ]);
    const aEdited = { ...a, variables: { city: 'Rome' } };
    const at = async (version?: number) => {
      const page = await api.get(`/v2/datasets/cities/items${version === undefined ? '' : `?version=${version}`}`).expect(200);
      expect(page.body.version).toBe(version ?? 5);
      return page.body.data.map((item: any) => ({ id: item.id, since: item.sinceVersion, ...content(item) }));
    };
    const [ids3, ids5] = [v3.map((item) => item.id), [idA, ...v3.slice(2).map((item) => item.id)]];
    expect((await at(1)).map(({ id, since: _since, ...rest }: any) => [id, rest])).toEqual([
      [idA, a],
      [idB, b],
    ]);
    expect((await at(3)).map((item: any) => item.id)).toEqual(ids3);
    expect((await at(3))[0]).toEqual({ id: idA, since: 1, ...a });
    expect((await at(4)).map(({ id, since, ...rest }: any) => [id, since, rest])).toEqual([
      [idA, 4, aEdited],
      ...v3.slice(1).map((item) => [item.id, item.sinceVersion, content(item)]),
    ]);
    for (const current of [await at(5), await at()]) {
      expect(current.map((item: any) => item.id)).toEqual(ids5);
      expect(current[0]).toEqual({ id: idA, since: 4, ...aEdited });
    }
    expect((await api.get(`/v2/datasets/cities/items/${idA}`).expect(200)).body).toMatchObject({ id: idA, sinceVersion: 4, ...aEdited });
    expectResourceError(await api.get(`/v2/datasets/cities/items/${idB}`), 404, 'Dataset item not found');
    expectResourceError(await api.get('/v2/datasets/cities/items?version=6'), 404, 'Dataset "cities" has no version 6');
    expect((await api.get('/v2/datasets/cities').expect(200)).body).toMatchObject({ version: 5, itemCount: 5 });
    const rows = await t.dataSource.query(
      'SELECT i.id, i.since_version, i.until_version FROM dataset_items i JOIN datasets d ON d.project_id = i.project_id AND d.id = i.dataset_id WHERE d.project_id = $1 AND d.name = $2 ORDER BY i.id, i.since_version',
      [p.projectId, 'cities'],
    );
    expect(rows.filter((r: any) => r.id === idA || r.id === idB).map((r: any) => [r.id, r.since_version, r.until_version])).toEqual([
      [idA, 1, 4],
      [idA, 4, null],
      [idB, 1, 5],
    ]);
  });

  it('refuses an import with every problem and its line, storing nothing', async () => {
    await create('broken');
    const jsonl = [
      JSON.stringify({ variables: { q: 'fine' } }),
      '{not json',
      JSON.stringify({ variables: { q: 'x' }, extra: true }),
      JSON.stringify({ variables: { '1bad': 'x' }, messages: 'hi' }),
      '[1]',
    ].join('\n');
    invalidBody(await api.post('/v2/datasets/broken/import', { format: 'jsonl', content: jsonl }), [
      'line 2: not a JSON object',
      'line 3: item: Unrecognized key: "extra"',
      'line 4: variables.1bad: Invalid key in record',
      'line 4: messages: Invalid input: expected array, received string',
      'line 5: item: Invalid input: expected object, received array',
    ]);
    invalidBody(await api.post('/v2/datasets/broken/import', { format: 'csv', content: 'q,messages\nhi,[oops\nho,\n' }), [
      'line 2: messages: not a JSON array',
    ]);
    invalidBody(await api.post('/v2/datasets/broken/import', { format: 'csv', content: 'q,expected\na,b,c\n' }), [
      expect.stringMatching(/^CSV: /),
    ]);
    expect((await api.get('/v2/datasets/broken').expect(200)).body).toMatchObject({ version: 0, itemCount: 0 });
    const stored = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM dataset_items i JOIN datasets d ON d.project_id = i.project_id AND d.id = i.dataset_id WHERE d.project_id = $1 AND d.name = $2',
      [p.projectId, 'broken'],
    );
    expect(stored).toEqual([{ n: 0 }]);
  });

  it('names the line of a CSV problem after a record whose quoted cell spans several lines', async () => {
    await create('multiline');
    const csv = 'q,messages\n"first line\nsecond line",\nok,[oops\n';
    invalidBody(await api.post('/v2/datasets/multiline/import', { format: 'csv', content: csv }), ['line 4: messages: not a JSON array']);
  });

  it('makes gapless versions of changes sent at once', async () => {
    await create('busy');
    const adds = await Promise.all(
      [1, 2, 3, 4, 5].map((k) => api.post('/v2/datasets/busy/items', { items: Array(k).fill({ expected: k }) })),
    );
    expect(adds.map((res) => res.body.version).sort()).toEqual([1, 2, 3, 4, 5]);
    const versions = (await api.get('/v2/datasets/busy/versions').expect(200)).body.data;
    expect(versions.map((v: any) => v.version)).toEqual([5, 4, 3, 2, 1, 0]);
    // Each version holds the items of the versions before it and its own.
    const added = new Map(adds.map((res) => [res.body.version, res.body.itemIds.length]));
    expect(versions.map((v: any) => v.itemCount)).toEqual([5, 4, 3, 2, 1, 0].map((v) => sumTo(v, added)));
    expect((await walk(api, '/v2/datasets/busy/items?version=3')).length).toBe(sumTo(3, added));
    expect((await api.get('/v2/datasets/busy').expect(200)).body).toMatchObject({ version: 5, itemCount: 15 });
  });

  it('walks every item exactly once by keyset, in the current version and in an older one', async () => {
    await create('many');
    const items = Array.from({ length: 250 }, (_, n) => ({ variables: { n }, expected: `answer ${n}` }));
    const { itemIds } = (await api.post('/v2/datasets/many/items', { items }).expect(200)).body;
    expect(new Set(itemIds).size).toBe(250);
    const removed = [itemIds[0], itemIds[100], itemIds[249]];
    for (const id of removed) await api.delete(`/v2/datasets/many/items/${id}`).expect(200);
    const sorted = [...itemIds].sort();
    const v1 = await walk(api, '/v2/datasets/many/items?version=1', 37);
    expect(v1.map((item) => item.id)).toEqual(sorted);
    expect(v1.map((item) => item.variables.n).sort((x, y) => Number(x) - Number(y))).toEqual(items.map((_, n) => String(n)));
    const live = sorted.filter((id) => !removed.includes(id));
    expect((await walk(api, '/v2/datasets/many/items', 37)).map((item) => item.id)).toEqual(live);
    const first = await api.get('/v2/datasets/many/items?limit=37').expect(200);
    expect(first.body).toMatchObject({ object: 'list', version: 4, has_more: true, first_id: live[0] });
    expect(first.body.last_id).toBe(first.body.data[36].id);
  });

  it("adds a request log's variables, sent messages and answer; without the answer on request; another project's log is 404", async () => {
    await create('from-logs');
    await deploy(t, p, { slug: 'asker', template: [{ role: 'system', content: 'Answer about {{city}}.' }] });
    const invoked = await api.post(invokePath(p, 'asker'), { variables: { city: 'Paris' }, messages: [user('What is the capital?')] });
    expect(invoked.status).toBe(200);
    const logId = invoked.headers['x-parley-log-id'];
    expect(logId).toMatch(UUID);
    const added = (await api.post('/v2/datasets/from-logs/items/from', { logId }).expect(200)).body;
    expect(added).toEqual({ version: 1, itemCount: 1, itemIds: [expect.stringMatching(UUID)] });
    const item = (await api.get(`/v2/datasets/from-logs/items/${added.itemIds[0]}`).expect(200)).body;
    expect(item).toMatchObject({
      variables: { city: 'Paris' },
      messages: [user('What is the capital?')],
      expected: 'What is the capital?',
      metadata: {},
      source: { logId, prompt: 'asker', version: 1 },
    });
    const bare = (await api.post('/v2/datasets/from-logs/items/from', { logId, includeAnswer: false }).expect(200)).body;
    expect((await api.get(`/v2/datasets/from-logs/items/${bare.itemIds[0]}`).expect(200)).body.expected).toBeNull();

    await deploy(t, other, { slug: 'asker' });
    const foreign = await client(t, other.key).post(invokePath(other, 'asker'), { messages: [user('theirs')] });
    expectResourceError(
      await api.post('/v2/datasets/from-logs/items/from', { logId: foreign.headers['x-parley-log-id'] }),
      404,
      'Request log not found',
    );
    const secret = await api.post(invokePath(p, 'asker'), { doNotRecord: true, messages: [user('hush')] }).expect(200);
    invalidBody(await api.post('/v2/datasets/from-logs/items/from', { logId: secret.headers['x-parley-log-id'] }), [
      'logId: this call was made with doNotRecord: its inputs were not stored',
    ]);
    expect((await api.get('/v2/datasets/from-logs').expect(200)).body).toMatchObject({ version: 2, itemCount: 2 });
  });

  it('adds a thread turn: the thread up to it, the variables of its call and the reply as expected', async () => {
    await create('from-threads');
    await deploy(t, p, { slug: 'helper', kind: 'assistant', template: [{ role: 'system', content: 'Help with {{topic}}.' }] });
    const first = await api.post(invokePath(p, 'helper'), { variables: { topic: 'tea' }, messages: [user('one')] }).expect(200);
    const threadId = first.headers['x-parley-thread-id'];
    const second = await api.post(invokePath(p, 'helper'), { threadId, variables: { topic: 'jam' }, messages: [user('two')] });
    expect(second.status).toBe(200);
    const turns = await threadMessageRows(t, p.projectId, threadId);
    expect(turns.map((turn) => turn.content)).toEqual([[user('one')], [reply('one')], [user('two')], [reply('two')]]);
    const log = (await requestLogRows(t, p.projectId)).find((row) => row.id === second.headers['x-parley-log-id'])!;
    const added = await api.post('/v2/datasets/from-threads/items/from', { threadId, messageId: turns[2].id }).expect(200);
    const item = (await api.get(`/v2/datasets/from-threads/items/${added.body.itemIds[0]}`).expect(200)).body;
    expect(item).toMatchObject({
      variables: { topic: 'jam' },
      messages: [user('one'), reply('one'), user('two')],
      expected: 'two',
      source: { threadId, messageId: turns[2].id, logId: log.id },
    });
    await client(t, other.key).post('/v2/datasets', { name: 'from-threads' }).expect(200);
    expectResourceError(
      await client(t, other.key).post('/v2/datasets/from-threads/items/from', { threadId, messageId: turns[2].id }),
      404,
      'Thread message not found',
    );
    expectResourceError(
      await api.post('/v2/datasets/from-threads/items/from', { threadId, messageId: 'msg_missing' }),
      404,
      'Thread message not found',
    );
  });
});
