import * as fs from 'node:fs';
import * as path from 'node:path';

import OpenAI from 'openai';

import { runImportAssistantsThreads } from '../src/cli/commands/import.command';
import { createProject, TestProject } from './support/factories';
import { Client, client, UUID } from './support/http';
import { listen } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const EXAMPLE = fs.readFileSync(path.join(__dirname, '../docs/examples/assistants-export.jsonl'), 'utf8');
const records = (text = EXAMPLE) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

/** POST /v2/import and `parley import assistants-threads`: Assistants API exports into threads, idempotently. */
describe('import of Assistants API threads', () => {
  let t: TestApp;
  let base: string;
  let p: TestProject;
  let api: Client;

  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
  });
  afterAll(() => t.close());

  const rows = async (projectId: string) => ({
    threads: await t.dataSource.query('SELECT id, metadata, created_at, last_seq FROM threads WHERE project_id = $1 ORDER BY id', [
      projectId,
    ]),
    messages: await t.dataSource.query(
      'SELECT id, thread_id, seq, content, metadata, created_at FROM thread_messages WHERE project_id = $1 ORDER BY thread_id, seq',
      [projectId],
    ),
  });

  it('creates threads with their messages, metadata, timestamps and order; importing again creates nothing', async () => {
    const res = await api.post('/v2/import', { records: records() }).expect(200);
    expect(res.body).toEqual({
      threads_created: 2,
      messages_created: 5,
      threads: [
        {
          source_id: 'thread_abc123',
          thread_id: expect.stringMatching(UUID),
          action: 'created',
          messages_created: 3,
          messages_existing: 0,
        },
        {
          source_id: 'thread_def456',
          thread_id: expect.stringMatching(UUID),
          action: 'created',
          messages_created: 2,
          messages_existing: 0,
        },
      ],
    });
    const [first, second] = res.body.threads.map((x: { thread_id: string }) => x.thread_id);

    const thread = await api.get(`/v2/threads/${first}`).expect(200);
    expect(thread.body).toMatchObject({ id: first, metadata: { customer: 'c_42', channel: 'web' }, createdAt: 1735689600 });
    const messages = await api.get(`/v2/threads/${first}/messages`).expect(200);
    expect(messages.body.data.map((m: { content: unknown }) => m.content)).toEqual([
      [{ role: 'user', content: 'Where is my order #1042?' }],
      [{ role: 'assistant', content: 'It left the warehouse yesterday; tracking number ZX-88.' }],
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here is the label:' },
            { type: 'image_url', image_url: { url: 'https://example.com/label.png', detail: 'low' } },
          ],
        },
      ],
    ]);
    expect(messages.body.data[1]).toMatchObject({ metadata: { rating: 'good' }, createdAt: '2025-01-01T00:00:05.000Z' });
    // Newest first on /v2/threads: the ids carry the original created_at.
    const listed = await api.get('/v2/threads').expect(200);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([second, first]);

    const before = await rows(p.projectId);
    const again = await api.post('/v2/import', { records: records().reverse() }).expect(200);
    expect(again.body.threads_created).toBe(0);
    expect(again.body.messages_created).toBe(0);
    expect(again.body.threads.map((x: { action: string; thread_id: string }) => [x.action, x.thread_id]).sort()).toEqual(
      [
        ['existing', first],
        ['existing', second],
      ].sort(),
    );
    expect(await rows(p.projectId)).toEqual(before);

    // An export that gained a message since: only that one is appended.
    const newer = {
      ...records()[2],
      id: 'msg_004',
      created_at: 1735689800,
      content: [{ type: 'text', text: { value: 'Thanks!', annotations: [] } }],
    };
    const third = await api.post('/v2/import', { records: [...records(), newer] }).expect(200);
    expect(third.body.messages_created).toBe(1);
    const after = await rows(p.projectId);
    expect(after.messages).toHaveLength(before.messages.length + 1);
    expect(after.messages.filter((m: { thread_id: string }) => m.thread_id === first).map((m: { seq: number }) => m.seq)).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it('imported threads are conversations on /v1 with the same history', async () => {
    const q = await createProject(t);
    const summary = await runImportAssistantsThreads(EXAMPLE, { url: base, key: q.key });
    expect(summary.threads_created).toBe(2);
    const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: q.key, maxRetries: 0 });
    const items: OpenAI.Conversations.ConversationItem[] = [];
    for await (const item of openai.conversations.items.list(summary.threads[1].thread_id, { order: 'asc' })) items.push(item);
    expect(items).toMatchObject([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Do you ship to Norway?' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Yes, within 5 working days.' }] },
    ]);
    // Same export, another project: other ids (derived from the project too), nothing shared.
    expect(summary.threads.map((x) => x.thread_id)).not.toContain((await api.get('/v2/threads')).body.data[0].id);
    // The CLI path again: idempotent.
    const again = await runImportAssistantsThreads(EXAMPLE, { url: base, key: q.key });
    expect(again.messages_created).toBe(0);
  });

  it('refuses an invalid export as a whole, one line per problem, and writes nothing', async () => {
    const q = await createProject(t);
    const bad = [
      ...records(),
      { object: 'thread.message', id: 'msg_x', thread_id: 'thread_missing', created_at: 1, role: 'user', content: [] },
      {
        object: 'thread.message',
        id: 'msg_y',
        thread_id: 'thread_abc123',
        created_at: 1,
        role: 'user',
        content: [{ type: 'image_file', image_file: { file_id: 'file_1' } }],
      },
      { object: 'run', id: 'run_1' },
    ];
    const res = await t.http().post('/v2/import').set('X-API-Key', q.key).send({ records: bad }).expect(400);
    expect(res.body.error.message).toBe('Invalid import');
    expect(res.body.error.details).toEqual([
      'record 9: content.0: image_file parts name OpenAI files, which Parley cannot fetch; export them as image_url',
      'record 10: "object" must be "thread" or "thread.message"',
      'record 8: thread thread_missing is not in the export',
    ]);
    expect(await rows(q.projectId)).toEqual({ threads: [], messages: [] });
    await expect(runImportAssistantsThreads('{"object":"thread"\nnot json\n', { url: base, key: q.key })).rejects.toMatchObject({
      body: { error: { message: 'Invalid import', details: ['line 1: not JSON', 'line 2: not JSON'] } },
    });
    await t.http().post('/v2/import').set('X-API-Key', q.key).send({ rows: [] }).expect(400);
  });

  it('the admin key names the project; a project key cannot name another', async () => {
    const q = await createProject(t);
    await t.http().post('/v2/import').set('X-API-Key', TEST_ADMIN_KEY).send({ records: records() }).expect(400);
    const admin = await t
      .http()
      .post('/v2/import')
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ workspace: q.workspace, project: q.project, records: records() })
      .expect(200);
    expect(admin.body.threads_created).toBe(2);
    expect((await rows(q.projectId)).threads).toHaveLength(2);
    await t
      .http()
      .post('/v2/import')
      .set('X-API-Key', p.key)
      .send({ workspace: q.workspace, project: q.project, records: records() })
      .expect(403);
    await t
      .http()
      .post('/v2/import')
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ workspace: q.workspace, project: 'nope', records: records() })
      .expect(404);
  });
});
