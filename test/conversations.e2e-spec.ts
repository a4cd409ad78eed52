import OpenAI from 'openai';

import { createProject, TestProject } from './support/factories';
import { Client, client, UUID } from './support/http';
import { deploy, INVOKE_APP_ENV, invokePath, listen } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const ITEM_ID = /^(msg|fc|fco)_[0-9a-f]{32}_\d+_\d+$/;

/** /v1/conversations through the official SDK (baseURL + apiKey only), one store with /v2. */
describe('conversations (OpenAI SDK)', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let openai: OpenAI;

  const text = (role: 'user' | 'assistant' | 'system' | 'developer', content: string) => ({ type: 'message' as const, role, content });

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
  });
  afterAll(() => t.close());

  it('create/retrieve/update/delete, stored as a thread with the same id (soft delete: rows kept)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const conv = await openai.conversations.create({
      metadata: { topic: 'tea' },
      items: [text('system', 'Be brief.'), text('user', 'Hello')],
    });
    expect(conv).toEqual({
      id: expect.stringMatching(UUID),
      object: 'conversation',
      created_at: expect.any(Number),
      metadata: { topic: 'tea' },
    });
    expect(conv.created_at).toBeGreaterThanOrEqual(before - 1);

    expect(await openai.conversations.retrieve(conv.id)).toEqual(conv);
    const v2 = await api.get(`/v2/threads/${conv.id}`).expect(200);
    expect(v2.body).toMatchObject({ id: conv.id, projectId: p.projectId, metadata: { topic: 'tea' } });
    const rows = await t.dataSource.query('SELECT seq, content FROM thread_messages WHERE thread_id = $1 ORDER BY seq', [conv.id]);
    expect(rows).toEqual([
      {
        seq: 1,
        content: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
      },
    ]);

    const updated = await openai.conversations.update(conv.id, { metadata: { topic: 'coffee', lang: 'en' } });
    expect(updated).toEqual({ ...conv, metadata: { topic: 'coffee', lang: 'en' } });
    expect((await api.get(`/v2/threads/${conv.id}`)).body.metadata).toEqual({ topic: 'coffee', lang: 'en' });

    expect(await openai.conversations.delete(conv.id)).toEqual({ id: conv.id, object: 'conversation.deleted', deleted: true });
    await expect(openai.conversations.retrieve(conv.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.conversations.items.list(conv.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await api.get(`/v2/threads/${conv.id}`).expect(404);
    const [thread] = await t.dataSource.query('SELECT deleted_at FROM threads WHERE id = $1', [conv.id]);
    const [message] = await t.dataSource.query('SELECT deleted_at FROM thread_messages WHERE thread_id = $1', [conv.id]);
    expect(thread.deleted_at).toBeInstanceOf(Date);
    expect(message.deleted_at).toBeInstanceOf(Date);
  });

  it('items.create returns the items in OpenAI shapes; function calls join the assistant message; retrieve by id', async () => {
    const conv = await openai.conversations.create();
    const created = await openai.conversations.items.create(conv.id, {
      items: [
        text('developer', 'Use tools.'),
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather?' },
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
          ],
        },
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '3°C' },
        { type: 'function_call_output', call_id: 'call_2', output: '18°C' },
        text('assistant', 'Oslo 3°C, Rome 18°C.'),
      ],
    });
    expect(created.object).toBe('list');
    expect(created.has_more).toBe(false);
    const types = created.data.map((item) => item.type);
    expect(types).toEqual([
      'message',
      'message',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
      'message',
    ]);
    for (const item of created.data) expect((item as { id: string }).id).toMatch(ITEM_ID);
    expect(created.first_id).toBe((created.data[0] as { id: string }).id);
    expect(created.data[0]).toMatchObject({
      type: 'message',
      role: 'developer',
      status: 'completed',
      content: [{ type: 'input_text', text: 'Use tools.' }],
    });
    expect(created.data[1]).toMatchObject({
      role: 'user',
      content: [
        { type: 'input_text', text: 'Weather?' },
        { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
      ],
    });
    expect(created.data[2]).toMatchObject({
      type: 'function_call',
      call_id: 'call_1',
      name: 'weather',
      arguments: '{"city":"Oslo"}',
      status: 'completed',
    });
    expect(created.data[5]).toMatchObject({ type: 'function_call_output', call_id: 'call_2', output: '18°C' });
    expect(created.data[6]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Oslo 3°C, Rome 18°C.', annotations: [] }],
    });

    // Stored as one turn of chat messages, the two calls in one assistant message (what providers need).
    const [row] = await t.dataSource.query('SELECT content FROM thread_messages WHERE thread_id = $1', [conv.id]);
    expect(row.content[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
      ],
    });
    expect(row.content[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '3°C' });

    for (const item of created.data) {
      const id = (item as { id: string }).id;
      expect(await openai.conversations.items.retrieve(id, { conversation_id: conv.id })).toEqual(item);
    }
  });

  it('items.list: default desc, limit 1–100, and the SDK auto-pagination iterates every item in order', async () => {
    const conv = await openai.conversations.create({ items: [text('user', 'm0')] });
    const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => text(i % 2 ? 'assistant' : 'user', `m${from + i}`));
    await openai.conversations.items.create(conv.id, { items: batch(1, 20) });
    await openai.conversations.items.create(conv.id, { items: batch(21, 12) });
    const texts = (items: OpenAI.Conversations.ConversationItem[]) =>
      items.map((i) => ((i as OpenAI.Conversations.Message).content[0] as { text: string }).text);
    const expected = Array.from({ length: 33 }, (_, i) => `m${i}`);

    const firstPage = await openai.conversations.items.list(conv.id);
    expect(firstPage.data).toHaveLength(20);
    expect(texts(firstPage.data)).toEqual([...expected].reverse().slice(0, 20));
    expect(firstPage.has_more).toBe(true);

    const asc: OpenAI.Conversations.ConversationItem[] = [];
    for await (const item of openai.conversations.items.list(conv.id, { order: 'asc', limit: 7 })) asc.push(item);
    expect(texts(asc)).toEqual(expected);
    const desc: OpenAI.Conversations.ConversationItem[] = [];
    for await (const item of openai.conversations.items.list(conv.id, { limit: 5, include: ['message.output_text.logprobs'] }))
      desc.push(item);
    expect(texts(desc)).toEqual([...expected].reverse());

    await expect(openai.conversations.items.list(conv.id, { limit: 101 })).rejects.toMatchObject({ status: 400, param: 'limit' });
    await expect(openai.conversations.items.list(conv.id, { limit: 0 })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(openai.conversations.items.list(conv.id, { after: 'msg_nope' })).rejects.toMatchObject({ status: 400, param: 'after' });
  });

  it('a /v2 thread (assistant invoke, several chat messages per turn) reads as a conversation, each item addressable', async () => {
    await deploy(t, p, { slug: 'helper', kind: 'assistant' });
    const invoked = await api
      .post(invokePath(p, 'helper'), {
        messages: [
          { role: 'user', content: 'first' },
          { role: 'user', content: 'second' },
        ],
      })
      .expect(200);
    const threadId = invoked.headers['x-parley-thread-id'];
    const toolTurn = {
      role: 'assistant',
      content: 'calling',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'c2', type: 'function', function: { name: 'g', arguments: '{"x":1}' } },
      ],
    };
    await api.post(`/v2/threads/${threadId}/messages`, { message: toolTurn }).expect(200);

    const conv = await openai.conversations.retrieve(threadId);
    expect(conv.id).toBe(threadId);
    const items: OpenAI.Conversations.ConversationItem[] = [];
    for await (const item of openai.conversations.items.list(threadId, { order: 'asc' })) items.push(item);
    expect(items.map((i) => i.type)).toEqual(['message', 'message', 'message', 'message', 'function_call', 'function_call']);
    expect(items.map((i) => (i as { role?: string }).role)).toEqual(['user', 'user', 'assistant', 'assistant', undefined, undefined]);
    expect(items[2]).toMatchObject({ content: [{ type: 'output_text', text: 'second' }] });
    expect(items[5]).toMatchObject({ call_id: 'c2', name: 'g', arguments: '{"x":1}' });

    // Delete one item of a multi-item turn: siblings keep their ids, /v2 and the model's history leave it out.
    const second = (items[1] as { id: string }).id;
    const deleted = await openai.conversations.items.delete(second, { conversation_id: threadId });
    expect(deleted).toEqual(conv);
    await expect(openai.conversations.items.retrieve(second, { conversation_id: threadId })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.conversations.items.delete(second, { conversation_id: threadId })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const after: OpenAI.Conversations.ConversationItem[] = [];
    for await (const item of openai.conversations.items.list(threadId, { order: 'asc' })) after.push(item);
    expect(after).toEqual([items[0], ...items.slice(2)]);
    const v2 = await api.get(`/v2/threads/${threadId}/messages`).expect(200);
    expect(v2.body.data[0].content).toEqual([{ role: 'user', content: 'first' }]);
    const rows = await t.dataSource.query('SELECT deleted_items, deleted_at FROM thread_messages WHERE thread_id = $1 ORDER BY seq', [
      threadId,
    ]);
    expect(rows[0]).toEqual({ deleted_items: ['1:0'], deleted_at: null });

    // Deleting one tool call keeps the other; deleting every item of a turn soft-deletes the row.
    await openai.conversations.items.delete((items[4] as { id: string }).id, { conversation_id: threadId });
    const v2Tool = await api.get(`/v2/threads/${threadId}/messages?order=desc&limit=1`).expect(200);
    expect(v2Tool.body.data[0].content).toEqual([{ ...toolTurn, tool_calls: [toolTurn.tool_calls[1]] }]);
    await openai.conversations.items.delete((items[0] as { id: string }).id, { conversation_id: threadId });
    const [first] = await t.dataSource.query('SELECT deleted_items, deleted_at FROM thread_messages WHERE thread_id = $1 AND seq = 1', [
      threadId,
    ]);
    expect(first.deleted_items).toEqual(['1:0', '0:0']);
    expect(first.deleted_at).toBeInstanceOf(Date);

    // The next invoke sends the history without the deleted items (local/echo answers the last user text).
    const next = await api.post(invokePath(p, 'helper'), { threadId, messages: [{ role: 'user', content: 'third' }] }).expect(200);
    expect(next.body.choices[0].message.content).toBe('third');
  });

  it("refuses OpenAI-invalid input with 400 and param; other projects' conversations are not found", async () => {
    const many = Array.from({ length: 21 }, (_, i) => text('user', `x${i}`));
    await expect(openai.conversations.create({ items: many })).rejects.toMatchObject({ status: 400, param: 'items' });
    const metadata = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    await expect(openai.conversations.create({ metadata })).rejects.toMatchObject({ status: 400, param: 'metadata' });
    await expect(openai.conversations.create({ metadata: { k: 'v'.repeat(513) } })).rejects.toMatchObject({
      status: 400,
      param: 'metadata.k',
    });
    const conv = await openai.conversations.create();
    await expect(openai.conversations.items.create(conv.id, { items: [{ type: 'Not A Type', id: 'x' } as never] })).rejects.toMatchObject({
      status: 400,
      param: 'items[0].type',
    });
    await expect(
      openai.conversations.items.create(conv.id, { items: [{ role: 'user', content: [{ type: 'input_text' }] } as never] }),
    ).rejects.toMatchObject({ status: 400, param: 'items[0].content[0].text' });
    await expect(
      openai.conversations.items.create(conv.id, { items: [{ role: 'user', content: 'x', extra: 1 } as never] }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(openai.conversations.items.create(conv.id, { items: many })).rejects.toMatchObject({ status: 400, param: 'items' });
    const [row] = await t.dataSource.query('SELECT last_seq FROM threads WHERE id = $1', [conv.id]);
    expect(row.last_seq).toBe(0);

    await expect(openai.conversations.retrieve('not-a-uuid')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const other = await createProject(t);
    const otherClient = new OpenAI({ baseURL: openai.baseURL, apiKey: other.key, maxRetries: 0 });
    await expect(otherClient.conversations.retrieve(conv.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(otherClient.conversations.update(conv.id, { metadata: {} })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(otherClient.conversations.delete(conv.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(otherClient.conversations.items.list(conv.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const bad = new OpenAI({ baseURL: openai.baseURL, apiKey: 'wrong', maxRetries: 0 });
    await expect(bad.conversations.create()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('GET /v1/conversations (extension): newest first, cursor, metadata filter', async () => {
    const q = await createProject(t);
    const sdk = new OpenAI({ baseURL: openai.baseURL, apiKey: q.key, maxRetries: 0 });
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await sdk.conversations.create({ metadata: { n: String(i), team: i % 2 ? 'odd' : 'even' } })).id);
    await sdk.conversations.delete(made[4]);
    const page1 = (await sdk.get('/conversations', { query: { limit: 2 } })) as {
      data: { id: string }[];
      has_more: boolean;
      last_id: string;
    };
    expect(page1.data.map((c) => c.id)).toEqual([made[3], made[2]]);
    expect(page1.has_more).toBe(true);
    const page2 = (await sdk.get('/conversations', { query: { limit: 2, after: page1.last_id } })) as typeof page1;
    expect(page2.data.map((c) => c.id)).toEqual([made[1], made[0]]);
    expect(page2.has_more).toBe(false);
    const even = await t.http().get('/v1/conversations?metadata[team]=even').set('Authorization', `Bearer ${q.key}`).expect(200);
    expect(even.body).toEqual({
      object: 'list',
      data: [made[2], made[0]].map((id, i) => ({
        id,
        object: 'conversation',
        created_at: expect.any(Number),
        metadata: { n: String(2 - 2 * i), team: 'even' },
      })),
      first_id: made[2],
      last_id: made[0],
      has_more: false,
    });
  });
});
