import { INVALID_METADATA_BODIES, MISSING_METADATA_BODIES } from '../support/spec-bad-inputs';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectResourceError } from './support/expect-errors';
import { KEYS, MESSAGE_NOT_FOUND, UNKNOWN_UUID } from './support/fakes';

/**
 * Spec endpoints 8 to 12 (thread messages): each documented error with the status the app answers
 * it with (the spec shows none: 400 for invalid input, 404 for not found). Invalid input is refused
 * by the real validation pipe before any service call; the not-found answers come from the fake
 * MessagesService's state, thrown as the real one throws them (notFound, an ApiException, with the
 * real service's three messages): the real conditions (another thread's or project's message, a
 * deleted one, malformed ids) are test/messages-errors.e2e-spec.ts's, and "Thread not found" on
 * create and list test/threads-errors.e2e-spec.ts's.
 */
describe('controller tier: thread message endpoints (spec 8-12)', () => {
  let t: ControllerApp;
  let threadId: string;
  let messageId: string;
  let otherThreadId: string;

  beforeAll(async () => {
    t = await createControllerApp();
    threadId = t.fakes.threads.seed();
    messageId = t.fakes.messages.seed(threadId, 'the original');
    otherThreadId = t.fakes.threads.seed();
  });
  afterAll(() => t.close());

  const api = keyedApi(() => t, KEYS.full);
  const calls = () => t.fakes.messages.calls.splice(0);
  beforeEach(() => void calls());

  describe('8. Create Thread Message: "Invalid request parameters"; "Thread not found"', () => {
    it.each([
      ['no message', {}],
      ['only metadata', { metadata: { a: 1 } }],
      ['message a string', { message: 'hi' }],
      ['message without content', { message: { role: 'user' } }],
      ['an unknown key in message', { message: { content: 'hi', mood: 'happy' } }],
      ['a bad role', { message: { role: 'robot', content: 'hi' } }],
      ['content a number', { message: { content: 42 } }],
      ['a content part of unknown type', { message: { content: [{ type: 'video', url: 'v' }] } }],
      ['tool_choice "required"', { message: { content: 'hi', tool_choice: 'required' } }],
      ['an unknown top-level field', { message: { content: 'hi' }, threadId: 'x' }],
      ['nested metadata', { message: { content: 'hi' }, metadata: { a: { b: 1 } } }],
    ])('400 for %s, before the service is called', async (_label, body) => {
      expectResourceError(await api.post(`/v2/threads/${threadId}/messages`, body), 400, 'Invalid request parameters');
      expect(calls()).toEqual([]);
    });

    it('names what is wrong in details', async () => {
      const res = await api.post(`/v2/threads/${threadId}/messages`, { message: { content: 'hi' }, extra: 1 });
      expectResourceError(res, 400, 'Invalid request parameters', ['extra: unknown field']);
    });

    it.each([
      ['malformed JSON', '{"message":'],
      ['a JSON array', '[]'],
      ['JSON null', 'null'],
    ])('400 for %s', async (_label, raw) => {
      expectResourceError(await api.postRaw(`/v2/threads/${threadId}/messages`, raw), 400, 'Invalid request parameters', null);
    });

    it('404 "Thread not found" for a valid body and a thread that does not exist', async () => {
      expectResourceError(
        await api.post(`/v2/threads/${UNKNOWN_UUID}/messages`, { message: { content: 'hi' } }),
        404,
        'Thread not found',
        null,
      );
      expect(calls()).toEqual(['create']);
    });

    it('200 with the message for a valid body', async () => {
      const res = await api.post(`/v2/threads/${threadId}/messages`, { message: { content: 'hi' }, metadata: { a: 1 } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['content', 'createdAt', 'id', 'metadata', 'requestLogId', 'threadId']);
    });
  });

  describe('9. List Thread Messages: "Invalid request parameters"; "Thread not found"', () => {
    it.each([
      ['limit=0', ['limit must be an integer from 1 to 100']],
      ['limit=101', ['limit must be an integer from 1 to 100']],
      ['order=up', ['order must be one of the following values: asc, desc']],
      ['order=ASC', ['order must be one of the following values: asc, desc']],
      ['order=asc&order=desc', undefined],
    ])('400 for ?%s, before the service', async (query, details) => {
      expectResourceError(await api.get(`/v2/threads/${threadId}/messages?${query}`), 400, 'Invalid request parameters', details);
      expect(calls()).toEqual([]);
    });

    it("400 for a cursor naming no message of this thread (the service's answer)", async () => {
      const elsewhere = t.fakes.messages.seed(otherThreadId);
      for (const after of [elsewhere, UNKNOWN_UUID, 'nope']) {
        expectResourceError(await api.get(`/v2/threads/${threadId}/messages?after=${after}`), 400, 'Invalid request parameters', [
          'after: no such message in this thread',
        ]);
      }
    });

    it('404 "Thread not found" for a thread that does not exist', async () => {
      expectResourceError(await api.get(`/v2/threads/${UNKNOWN_UUID}/messages`), 404, 'Thread not found', null);
    });

    it('200 for order=desc&limit=100', async () => {
      expect((await api.get(`/v2/threads/${threadId}/messages?order=desc&limit=100`)).status).toBe(200);
    });
  });

  describe('10. Get Thread Message: "Thread not found, message not in thread, or message does not exist"', () => {
    it('404 for an unknown message, a message under the wrong thread, and an unknown thread', async () => {
      for (const [thread, message] of [
        [threadId, UNKNOWN_UUID],
        [otherThreadId, messageId],
        [UNKNOWN_UUID, messageId],
        [threadId, 'msg_123'],
      ]) {
        expectResourceError(await api.get(`/v2/threads/${thread}/messages/${message}`), 404, MESSAGE_NOT_FOUND.get, null);
      }
    });

    it('200 for the message under its thread', async () => {
      expect((await api.get(`/v2/threads/${threadId}/messages/${messageId}`)).status).toBe(200);
    });
  });

  describe('11. Update Thread Message: "Metadata is required"; "Message not found"', () => {
    it.each(MISSING_METADATA_BODIES)('400 "Metadata is required" for %s, before the message is looked up', async (_label, body) => {
      expectResourceError(await api.post(`/v2/threads/${threadId}/messages/${UNKNOWN_UUID}`, body), 400, 'Metadata is required', null);
      expect(calls()).toEqual([]);
    });

    it('400 "Invalid request body" for metadata breaking the limits, or a field more', async () => {
      for (const { body, details } of INVALID_METADATA_BODIES)
        expectResourceError(await api.post(`/v2/threads/${threadId}/messages/${messageId}`, body), 400, 'Invalid request body', details);
      expect(calls()).toEqual([]);
    });

    it('404 "Message not found" for a valid body and a message not in the thread', async () => {
      for (const [thread, message] of [
        [threadId, UNKNOWN_UUID],
        [otherThreadId, messageId],
      ]) {
        expectResourceError(
          await api.post(`/v2/threads/${thread}/messages/${message}`, { metadata: { a: 1 } }),
          404,
          MESSAGE_NOT_FOUND.update,
          null,
        );
      }
      expect(calls()).toEqual(['update', 'update']);
    });
  });

  describe('12. Delete Thread Message: "Message not found or does not belong to the proper thread/project"', () => {
    it('404 for an unknown message, a message under the wrong thread, and one deleted already', async () => {
      const doomed = t.fakes.messages.seed(threadId);
      expect((await api.delete(`/v2/threads/${threadId}/messages/${doomed}`)).body).toEqual({
        id: doomed,
        object: 'thread.message.deleted',
        deleted: true,
      });
      for (const [thread, message] of [
        [threadId, UNKNOWN_UUID],
        [otherThreadId, messageId],
        [threadId, doomed],
      ]) {
        expectResourceError(await api.delete(`/v2/threads/${thread}/messages/${message}`), 404, MESSAGE_NOT_FOUND.delete, null);
      }
    });
  });
});
