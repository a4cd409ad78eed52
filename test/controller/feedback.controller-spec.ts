import { FeedbackController } from '../../src/feedback/feedback.controller';
import { FeedbackService } from '../../src/feedback/feedback.service';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { KEYS, UNKNOWN_UUID } from './support/fakes';
import { FakeFeedback, FEEDBACK_KEYS, FeedbackApiKeys, KNOWN } from './support/feedback-fakes';

/**
 * The feedback routes (docs/experiments.md, "Feedback") with the app's guard, pipe and filter over
 * an in-memory FeedbackService (support/feedback-fakes.ts): every error body they answer, with no
 * database. The real conditions (targets of another project, replacement, the rollups):
 * test/feedback.e2e-spec.ts.
 */
const ENDPOINTS = [
  { method: 'post', path: '/v2/feedback', scope: 'feedback:write', body: { logId: KNOWN.log, name: 'helpful', value: true } },
  { method: 'get', path: '/v2/feedback', scope: 'logs:read' },
  { method: 'get', path: '/v2/feedback/summary?prompt=support-reply&environment=production', scope: 'logs:read' },
] as const;

const NAME_RULE = 'name: Expected a feedback name: 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit';
const VALUE_RULE = 'value: Expected a number, true or false, or a category: 1-64 characters, no control characters';
const CATEGORY_RULE = 'value: Expected a category: 1-64 characters, no control characters';
const ONE_TARGET = 'Expected exactly one of logId, threadId or responseId';

describe('controller tier: feedback', () => {
  let t: ControllerApp;
  let fake: FakeFeedback;

  beforeAll(async () => {
    fake = new FakeFeedback();
    t = await createControllerApp({
      controllers: [FeedbackController],
      providers: [{ provide: FeedbackService, useValue: fake }],
      keys: new FeedbackApiKeys(),
    });
  });
  afterAll(() => t.close());
  beforeEach(() => void fake.calls.splice(0));

  const api = keyedApi(() => t, KEYS.full);
  const send = (endpoint: (typeof ENDPOINTS)[number], headers: Record<string, string>) => {
    const req = t.http()[endpoint.method](endpoint.path).set(headers);
    return 'body' in endpoint ? req.send(endpoint.body) : req;
  };

  describe.each(ENDPOINTS.map((endpoint) => [`${endpoint.method.toUpperCase()} ${endpoint.path}`, endpoint] as const))(
    '%s: authentication and scopes',
    (_name, endpoint) => {
      it('401 without a key or with an unknown one', async () => {
        expectInvalidApiKey(await send(endpoint, {}));
        expectInvalidApiKey(await send(endpoint, { 'X-API-Key': 'ck-no-such-key' }));
        expect(fake.calls).toEqual([]);
      });

      it(`403 for a key without ${endpoint.scope}, and for the admin key without X-Parley-Project`, async () => {
        const lacking = endpoint.scope === 'logs:read' ? FEEDBACK_KEYS.writeOnly : KEYS.logsOnly;
        expectErrorAnswer(await send(endpoint, { 'X-API-Key': lacking }), 403, {
          error: 'Forbidden',
          message: `This API key lacks the scope this endpoint needs: ${endpoint.scope}`,
        });
        expectErrorAnswer(await send(endpoint, { 'X-API-Key': KEYS.admin }), 403, {
          error: 'Forbidden',
          message: 'This endpoint needs a project API key',
        });
        expect(fake.calls).toEqual([]);
      });

      it('passes a key holding the scope on to the service', async () => {
        const res = await send(endpoint, { 'X-API-Key': endpoint.scope === 'logs:read' ? KEYS.logsOnly : FEEDBACK_KEYS.writeOnly });
        expect([res.status, fake.calls.length]).toEqual([endpoint.method === 'post' ? 201 : 200, 1]);
      });
    },
  );

  describe('POST /v2/feedback', () => {
    const valid = { logId: KNOWN.log, name: 'helpful', value: true };

    it.each([
      ['two targets', { ...valid, threadId: KNOWN.thread }, [ONE_TARGET]],
      ['no target', { name: 'helpful', value: true }, [ONE_TARGET]],
      ['an unknown field', { ...valid, score: 3 }, ['Unrecognized key: "score"']],
      ['no name', { logId: KNOWN.log, value: true }, ['name: Expected a feedback name']],
      ['a name of 65 characters', { ...valid, name: 'n'.repeat(65) }, [NAME_RULE]],
      ['a name that is no slug', { ...valid, name: 'Helpful!' }, [NAME_RULE]],
      ['no value', { logId: KNOWN.log, name: 'helpful' }, ['value: Required']],
      ['a null value', { ...valid, value: null }, [VALUE_RULE]],
      ['an object value', { ...valid, value: { stars: 4 } }, [VALUE_RULE]],
      ['an array value', { ...valid, value: [1] }, [VALUE_RULE]],
      ['a number out of range', { ...valid, value: 1e10 }, ['value: Expected a number from -1000000000 to 1000000000']],
      ['an empty category', { ...valid, value: '' }, [CATEGORY_RULE]],
      ['a category of 65 characters', { ...valid, value: 'c'.repeat(65) }, [CATEGORY_RULE]],
      ['a category with a control character', { ...valid, value: 'a\u0007b' }, [CATEGORY_RULE]],
      [
        'a comment of 2,001 characters',
        { ...valid, comment: 'c'.repeat(2001) },
        ['comment: Expected a comment of at most 2000 characters'],
      ],
      ['a comment that is no string', { ...valid, comment: 5 }, ['comment: Expected a comment']],
      ['a malformed log id', { ...valid, logId: 'log-1' }, ['logId: Expected a request log id']],
      ['a malformed thread id', { name: 'x', value: 1, threadId: '123' }, ['threadId: Expected a thread id']],
      [
        'a malformed response id',
        { name: 'x', value: 1, responseId: 'resp_xyz' },
        ['responseId: Expected a response id (resp_ and 32 hex digits)'],
      ],
    ])('400 "Invalid request body" for %s, before the service', async (_label, body, details) => {
      expectResourceError(await api.post('/v2/feedback', body), 400, 'Invalid request body', details);
      expect(fake.calls).toEqual([]);
    });

    it.each([
      ['malformed JSON', '{"name":', 'body: the body is not valid JSON'],
      ['a JSON array', '[]', 'body: expected a JSON object'],
      ['JSON null', 'null', 'body: expected a JSON object'],
      ['a JSON string', '"helpful"', 'body: expected a JSON object'],
    ])('400 "Invalid request body" for %s, naming the body', async (_label, raw, detail) => {
      expectResourceError(await api.raw('post', '/v2/feedback', raw), 400, 'Invalid request body', [detail]);
      expect(fake.calls).toEqual([]);
    });

    it('400 for a malformed Idempotency-Key', async () => {
      const res = await api.post('/v2/feedback', valid).set('Idempotency-Key', 'é');
      expectResourceError(res, 400, 'Invalid request body', ['Idempotency-Key: must be 1 to 255 visible ASCII characters']);
    });

    it.each([
      ['log', { logId: UNKNOWN_UUID }, 'Request log not found'],
      ['thread', { threadId: UNKNOWN_UUID }, 'Thread not found'],
      ['response', { responseId: 'resp_0199000000007000800000000000ffff' }, 'Response not found'],
    ])('404 for a %s the project does not have', async (_label, target, message) => {
      expectResourceError(await api.post('/v2/feedback', { ...target, name: 'helpful', value: true }), 404, message, null);
    });

    it('201 with the feedback; sent again, the same id with the new value', async () => {
      const first = await api.post('/v2/feedback', { responseId: KNOWN.response, name: 'tone', value: 'warm', comment: 'nice' });
      expect([first.status, first.body]).toEqual([
        201,
        expect.objectContaining({ object: 'feedback', target: { type: 'response', id: KNOWN.response }, value: 'warm', comment: 'nice' }),
      ]);
      const again = await api.post('/v2/feedback', { responseId: KNOWN.response, name: 'tone', value: 0.5 });
      expect([again.status, again.body.id, again.body.value, again.body.comment]).toEqual([201, first.body.id, 0.5, null]);
    });
  });

  describe('GET /v2/feedback', () => {
    it.each([
      ['limit=0', ['limit must be an integer from 1 to 100']],
      ['limit=101', ['limit must be an integer from 1 to 100']],
      ['version=abc&prompt=support-reply', ['version must be a version number']],
      [`name=${'n'.repeat(65)}`, ['name must be shorter than or equal to 64 characters']],
    ])('400 "Invalid request parameters" for ?%s, before the service', async (query, details) => {
      expectResourceError(await api.get(`/v2/feedback?${query}`), 400, 'Invalid request parameters', details);
      expect(fake.calls).toEqual([]);
    });

    it.each([
      ['version=2', ['version: needs prompt']],
      ['after=not-an-id', ['after: not a feedback id']],
    ])('400 "Invalid request parameters" for ?%s (the service\'s rules across fields)', async (query, details) => {
      expectResourceError(await api.get(`/v2/feedback?${query}`), 400, 'Invalid request parameters', details);
    });
  });

  describe('GET /v2/feedback/summary', () => {
    it.each([
      [
        'environment=production',
        ['prompt must be a string', 'prompt must be shorter than or equal to 64 characters', 'prompt must be a prompt slug'],
      ],
      ['prompt=support-reply', undefined],
      ['prompt=Support%20Reply&environment=production', ['prompt must be a prompt slug']],
    ])('400 "Invalid request parameters" for ?%s, before the service', async (query, details) => {
      expectResourceError(await api.get(`/v2/feedback/summary?${query}`), 400, 'Invalid request parameters', details);
      expect(fake.calls).toEqual([]);
    });

    it('200 with a row per version and name', async () => {
      fake.rollups.splice(0, fake.rollups.length, {
        version: 3,
        name: 'helpful',
        total: 100,
        numbers: 0,
        booleans: 100,
        value_sum: '10',
        value_sum_squares: '10',
        categories: {},
      });
      const res = await api.get('/v2/feedback/summary?prompt=support-reply&environment=production');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        expect.objectContaining({ version: 3, name: 'helpful', kind: 'boolean', count: 100, n: 100, mean: 0.1 }),
      ]);
      expect(res.body.data[0].interval).toEqual({ low: expect.closeTo(0.0552, 4), high: expect.closeTo(0.1744, 4), method: 'wilson' });
    });
  });
});
