import { MISSING_METADATA_BODIES } from '../support/spec-bad-inputs';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { KEYS, UNKNOWN_UUID } from './support/fakes';

/**
 * Spec endpoints 3 to 7 (threads): each error the spec documents, with the status the app answers
 * it with (the spec shows none for these endpoints: 400 for invalid input, 404 for not found).
 * Invalid input is refused by the real validation pipe before any service call; "Thread not found"
 * comes from the fake ThreadsService's state, thrown as the real one throws it (notFound, an
 * ApiException): the real conditions (unknown, malformed, deleted and other projects' ids, a
 * cursor naming no thread) are test/threads-errors.e2e-spec.ts's.
 */
describe('controller tier: thread endpoints (spec 3-7)', () => {
  let t: ControllerApp;
  let threadId: string;

  beforeAll(async () => {
    t = await createControllerApp();
    threadId = t.fakes.threads.seed({ stay: 'put' });
  });
  afterAll(() => t.close());

  const api = keyedApi(() => t, KEYS.full);
  const calls = () => t.fakes.threads.calls.splice(0);
  beforeEach(() => void calls());

  describe('3. Create Thread: {error: {message: "Invalid request body"}}', () => {
    it.each([
      ['an unknown top-level field', { metadata: {}, title: 'x' }, ['title: unknown field']],
      ['a nested metadata value', { metadata: { a: { b: 1 } } }, ['metadata.a must be a string or a number']],
      ['metadata a string', { metadata: 'a=1' }, undefined],
      ['a 513-character metadata value', { metadata: { a: 'x'.repeat(513) } }, undefined],
      ['an unknown createLog field', { createLog: { colour: 'red' } }, ['createLog.colour: unknown field']],
      ['a createLog field of the wrong type', { createLog: { stream: 'yes' } }, undefined],
    ])('400 for %s, before the service is called', async (_label, body, details) => {
      expectResourceError(await api.post('/v2/threads', body), 400, 'Invalid request body', details);
      expect(calls()).toEqual([]);
    });

    it.each([
      ['malformed JSON', '{"metadata": {'],
      ['a JSON array', '[{"metadata": {}}]'],
      ['a JSON string', '"metadata"'],
      ['JSON null', 'null'],
    ])('400 for %s (no details: there is no field to name)', async (_label, raw) => {
      expectResourceError(await api.postRaw('/v2/threads', raw), 400, 'Invalid request body', null);
      expect(calls()).toEqual([]);
    });

    it('a valid body reaches the service: 200 with the thread', async () => {
      const res = await api.post('/v2/threads', { metadata: { a: 1 } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['createLog', 'createdAt', 'deletedAt', 'id', 'metadata', 'projectId']);
      expect(calls()).toEqual(['create']);
    });
  });

  describe('4. List Threads', () => {
    it('401 {error: "Unauthorized", message: "Invalid API key"} for an invalid key (the spec\'s own example)', async () => {
      expectInvalidApiKey(await t.http().get('/v2/threads').set('X-API-Key', 'not-a-key'));
    });

    it.each([
      ['limit=101', ['limit must be an integer from 1 to 100']],
      ['limit=0', ['limit must be an integer from 1 to 100']],
      ['limit=abc', ['limit must be an integer from 1 to 100']],
      ['limit=1.5', ['limit must be an integer from 1 to 100']],
      ['limit=1&limit=2', undefined],
    ])('400 "Invalid request parameters" for ?%s (limit: at most 100), before the service', async (query, details) => {
      expectResourceError(await api.get(`/v2/threads?${query}`), 400, 'Invalid request parameters', details);
      expect(calls()).toEqual([]);
    });

    it.each([UNKNOWN_UUID, 'nope', ''])(
      '400 "Invalid request parameters" for ?after=%s, naming no thread of the project (the service\'s answer)',
      async (after) => {
        // Real condition (unknown or malformed ids, another project's thread): test/threads-errors.e2e-spec.ts.
        expectResourceError(await api.get(`/v2/threads?after=${after}`), 400, 'Invalid request parameters', ['after: no such thread']);
        expect(calls()).toEqual(['list']);
      },
    );

    it.each([['include=messages'], ['include='], ['include=preview&include=preview']])(
      '400 "Invalid request parameters" for ?%s (include: only "preview", a Parley addition), before the service',
      async (query) => {
        expectResourceError(await api.get(`/v2/threads?${query}`), 400, 'Invalid request parameters', ['include must be "preview"']);
        expect(calls()).toEqual([]);
      },
    );

    it('include=preview is accepted: the list envelope (the previews themselves: test/list-previews.e2e-spec.ts)', async () => {
      const res = await api.get('/v2/threads?include=preview');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'first_id', 'has_more', 'last_id', 'object']);
      expect(calls()).toEqual(['list']);
    });

    it('limit=100 and limit=1 are accepted: the list envelope', async () => {
      for (const limit of [1, 100]) {
        const res = await api.get(`/v2/threads?limit=${limit}`);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['data', 'first_id', 'has_more', 'last_id', 'object']);
      }
    });
  });

  describe('5. Get Thread: {error: {message: "Thread not found"}}', () => {
    it('404 for an id that names no live thread', async () => {
      for (const id of [UNKNOWN_UUID, 'not-a-uuid']) expectResourceError(await api.get(`/v2/threads/${id}`), 404, 'Thread not found', null);
    });

    it('200 for a live one', async () => {
      expect((await api.get(`/v2/threads/${threadId}`)).status).toBe(200);
    });
  });

  describe('6. Update Thread: "Metadata is required"; "Thread not found"', () => {
    it.each(MISSING_METADATA_BODIES)('400 "Metadata is required" for %s, checked before the thread is looked up', async (_label, body) => {
      expectResourceError(await api.post(`/v2/threads/${UNKNOWN_UUID}`, body), 400, 'Metadata is required', null);
      expect(calls()).toEqual([]);
    });

    it.each([
      ['malformed JSON', '{"metadata":'],
      ['a JSON array', '[]'],
      ['JSON null', 'null'],
    ])('400 "Metadata is required" for %s', async (_label, raw) => {
      expectResourceError(await api.postRaw(`/v2/threads/${threadId}`, raw), 400, 'Metadata is required', null);
    });

    it('400 "Invalid request body" for metadata breaking the limits, or a field more', async () => {
      expectResourceError(await api.post(`/v2/threads/${threadId}`, { metadata: { a: { b: 1 } } }), 400, 'Invalid request body', [
        'metadata.a must be a string or a number',
      ]);
      expectResourceError(await api.post(`/v2/threads/${threadId}`, { metadata: {}, createLog: {} }), 400, 'Invalid request body', [
        'createLog: unknown field',
      ]);
      expect(calls()).toEqual([]);
    });

    it('404 "Thread not found" for a valid body and an id that names no live thread', async () => {
      expectResourceError(await api.post(`/v2/threads/${UNKNOWN_UUID}`, { metadata: { a: 1 } }), 404, 'Thread not found', null);
      expect(calls()).toEqual(['update']);
    });
  });

  describe('7. Delete Thread: "Thread not found"', () => {
    it('404 for an unknown id, and for a thread deleted already', async () => {
      const id = t.fakes.threads.seed();
      expectResourceError(await api.delete(`/v2/threads/${UNKNOWN_UUID}`), 404, 'Thread not found', null);
      expect((await api.delete(`/v2/threads/${id}`)).body).toEqual({ id, object: 'thread.deleted', deleted: true });
      expectResourceError(await api.delete(`/v2/threads/${id}`), 404, 'Thread not found', null);
      // Then every read and write of it is the same 404 (real soft delete: test/threads.e2e-spec.ts).
      expectResourceError(await api.get(`/v2/threads/${id}`), 404, 'Thread not found', null);
      expectResourceError(await api.post(`/v2/threads/${id}`, { metadata: {} }), 404, 'Thread not found', null);
    });
  });
});
