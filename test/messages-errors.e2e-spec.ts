import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { INVALID_METADATA_BODIES, MISSING_METADATA_BODIES } from './support/spec-bad-inputs';
import { createTestApp, TestApp } from './support/test-app';

const GET_NOT_FOUND = 'Thread not found, message not in thread, or message does not exist';
const UPDATE_NOT_FOUND = 'Message not found';
const DELETE_NOT_FOUND = 'Message not found or does not belong to the proper thread/project';

/** Thread messages: every documented error message with its status. */
describe('thread message errors', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let threadId: string;
  let messageId: string;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    api = client(t, p.key);
    threadId = (await createThread(t, p)).id;
    messageId = (await createMessage(t, p, threadId, 'the original', { v: 1 })).id;
  });
  afterAll(() => t.close());

  const countMessages = async () =>
    Number((await t.dataSource.query('SELECT count(*) AS n FROM thread_messages WHERE thread_id = $1', [threadId]))[0].n);

  describe('create: Invalid request parameters', () => {
    const invalidBodies: [string, unknown][] = [
      ['no message', {}],
      ['only metadata', { metadata: { a: 1 } }],
      ['message null', { message: null }],
      ['message a string', { message: 'hi' }],
      ['message an array', { message: [{ content: 'hi' }] }],
      ['message without content', { message: { role: 'user' } }],
      ['an unknown key in message', { message: { content: 'hi', mood: 'happy' } }],
      ['function_call (not listed for this endpoint)', { message: { content: null, function_call: { name: 'f', arguments: '{}' } } }],
      ['a key named like an object method in message', { message: { content: 'hi', constructor: 'x' } }],
      ['a bad role', { message: { role: 'robot', content: 'hi' } }],
      ['content a number', { message: { content: 42 } }],
      ['content an object', { message: { content: { text: 'hi' } } }],
      ['a content part of unknown type', { message: { content: [{ type: 'video', url: 'v' }] } }],
      ['a text part without text', { message: { content: [{ type: 'text' }] } }],
      ['a content part that is a string', { message: { content: ['hi'] } }],
      ['an image part with a bad detail', { message: { content: [{ type: 'image_url', image_url: { url: 'u', detail: 'max' } }] } }],
      ['an unknown key in a part', { message: { content: [{ type: 'text', text: 'a', bold: true }] } }],
      [
        'a tool call without id',
        { message: { content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '' } }] } },
      ],
      ['tool_choice "required"', { message: { content: 'hi', tool_choice: 'required' } }],
      ['name a number', { message: { content: 'hi', name: 7 } }],
      ['an unknown top-level field', { message: { content: 'hi' }, threadId: 'x' }],
      ['bad metadata: nested value', { message: { content: 'hi' }, metadata: { a: { b: 1 } } }],
      ['bad metadata: 513-character value', { message: { content: 'hi' }, metadata: { a: 'x'.repeat(513) } }],
      ['bad metadata: an array', { message: { content: 'hi' }, metadata: [] }],
    ];
    it.each(invalidBodies)('%s → 400, nothing stored', async (_label, body) => {
      const before = await countMessages();
      expectResourceError(await api.post(`/v2/threads/${threadId}/messages`, body), 400, 'Invalid request parameters');
      expect(await countMessages()).toBe(before);
    });

    it.each([
      ['malformed JSON', '{"message":'],
      ['a JSON array', '[]'],
      ['JSON null', 'null'],
      ['a JSON string', '"hi"'],
    ])('%s → 400', async (_label, raw) => {
      expectResourceError(await api.postRaw(`/v2/threads/${threadId}/messages`, raw), 400, 'Invalid request parameters');
    });

    it('details name the offending path', async () => {
      const res = await api.post(`/v2/threads/${threadId}/messages`, { message: { role: 'robot', content: 'hi' } });
      expect(res.body.error.details.join('\n')).toContain('message.role');
    });
  });

  describe('list: Invalid request parameters', () => {
    it.each([
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'limit=-1',
      'limit=',
      'order=up',
      'order=ASC',
      'order=',
      'after=nope',
      'after=',
      'order=asc&order=desc',
    ])('?%s → 400', async (query) => {
      expectResourceError(await api.get(`/v2/threads/${threadId}/messages?${query}`), 400, 'Invalid request parameters');
    });

    it('after naming a message of another thread, another project, or an unknown uuid → 400', async () => {
      const sibling = await createThread(t, p);
      const siblingMessage = await createMessage(t, p, sibling.id, 'elsewhere');
      const other = await createProject(t);
      const otherThread = await createThread(t, other);
      const otherMessage = await createMessage(t, other, otherThread.id, 'foreign');
      for (const after of [siblingMessage.id, otherMessage.id, '01990000-0000-7000-8000-000000000000']) {
        expectResourceError(await api.get(`/v2/threads/${threadId}/messages?after=${after}`), 400, 'Invalid request parameters');
      }
    });
  });

  describe('update: Metadata is required', () => {
    it.each(MISSING_METADATA_BODIES)('%s → 400', async (_label, body) => {
      expectResourceError(await api.post(`/v2/threads/${threadId}/messages/${messageId}`, body), 400, 'Metadata is required');
    });

    it('metadata breaking the limits → 400 Invalid request body; the message keeps its metadata', async () => {
      for (const { body } of INVALID_METADATA_BODIES)
        expectResourceError(await api.post(`/v2/threads/${threadId}/messages/${messageId}`, body), 400, 'Invalid request body');
      expect((await api.get(`/v2/threads/${threadId}/messages/${messageId}`)).body.metadata).toEqual({ v: 1 });
    });
  });

  describe('not found: get, update and delete each with its own message', () => {
    let cases: [string, string, string][];
    let untouched: string[];

    beforeAll(async () => {
      const sibling = await createThread(t, p);
      const siblingMessage = await createMessage(t, p, sibling.id, 'in another thread');
      const other = await createProject(t);
      const otherThread = await createThread(t, other);
      const otherMessage = await createMessage(t, other, otherThread.id, 'in another project');
      const deleted = await createMessage(t, p, threadId, 'deleted');
      await api.delete(`/v2/threads/${threadId}/messages/${deleted.id}`).expect(200);
      untouched = [messageId, siblingMessage.id, otherMessage.id];
      cases = [
        ['a message of another thread', threadId, siblingMessage.id],
        ['the right message under the wrong thread', sibling.id, messageId],
        ['a message of another project (its own thread id)', otherThread.id, otherMessage.id],
        ['a message of another project under our thread', threadId, otherMessage.id],
        ['a deleted message', threadId, deleted.id],
        ['an unknown message id', threadId, '01990000-0000-7000-8000-000000000000'],
        ['a malformed message id', threadId, 'msg_123'],
        ['a malformed thread id', 'thread_1', messageId],
        ['an unknown thread id', '01990000-0000-7000-8000-000000000000', messageId],
      ];
    });

    it('GET → 404 Thread not found, message not in thread, or message does not exist', async () => {
      for (const [label, thread, message] of cases) {
        const res = await api.get(`/v2/threads/${thread}/messages/${message}`);
        expect([label, res.status, res.body.error?.message]).toEqual([label, 404, GET_NOT_FOUND]);
      }
    });

    it('POST (update) → 404 Message not found', async () => {
      for (const [label, thread, message] of cases) {
        const res = await api.post(`/v2/threads/${thread}/messages/${message}`, { metadata: { hacked: 1 } });
        expect([label, res.status, res.body.error?.message]).toEqual([label, 404, UPDATE_NOT_FOUND]);
      }
    });

    it('DELETE → 404 Message not found or does not belong to the proper thread/project', async () => {
      for (const [label, thread, message] of cases) {
        const res = await api.delete(`/v2/threads/${thread}/messages/${message}`);
        expect([label, res.status, res.body.error?.message]).toEqual([label, 404, DELETE_NOT_FOUND]);
        expectResourceError(res, 404, DELETE_NOT_FOUND);
      }
      // None of those calls touched a row.
      const rows: { metadata: object; deleted_at: unknown }[] = await t.dataSource.query(
        'SELECT metadata, deleted_at FROM thread_messages WHERE id = ANY($1::uuid[])',
        [untouched],
      );
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect(row.deleted_at).toBeNull();
        expect(row.metadata).not.toHaveProperty('hacked');
      }
    });
  });
});
