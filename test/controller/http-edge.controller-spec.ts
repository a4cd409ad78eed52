import { ControllerApp, createControllerApp } from './support/controller-app';
import { expectErrorAnswer, expectResourceError } from './support/expect-errors';
import { ENVIRONMENT, KEYS, PROJECT, WORKSPACE } from './support/fakes';

/**
 * What the app's edge answers on the spec's paths whatever the endpoint, none of it in the spec:
 * the body parser's 413 (configureApp), an unknown route, errors that are not the services' own
 * (a lost database connection: 503 with Retry-After; a bug: a 500 that tells nothing), and the
 * Idempotency-Key interceptor's 400, 409 and 422. The fakes throw what a database driver would;
 * against real databases: test/hardening-bounds.e2e-spec.ts (413), test/idempotency.e2e-spec.ts
 * (409, 422, replays). The filter's branches one by one: src/common/errors/api-exception.filter.spec.ts.
 */
describe('controller tier: the HTTP edge on spec paths', () => {
  let t: ControllerApp;

  beforeAll(async () => (t = await createControllerApp()));
  afterAll(() => t.close());

  const post = (path: string, body: unknown) =>
    t
      .http()
      .post(path)
      .set('X-API-Key', KEYS.full)
      .send(body as object);
  const connectionLost = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  describe("413: a body over BODY_LIMIT (1mb) is refused before routing, in the surface's error shape", () => {
    const big = { metadata: { a: 'x'.repeat(1024 * 1024) } };
    it.each([
      ['3. Create Thread', '/v2/threads'],
      ['6. Update Thread', '/v2/threads/01990000-0000-7000-8000-000000000000'],
      ['8. Create Thread Message', '/v2/threads/01990000-0000-7000-8000-000000000000/messages'],
      ['1. Invoke Assistant', `/${WORKSPACE}/${PROJECT}/helper/${ENVIRONMENT}`],
    ])('%s', async (_name, path) => {
      expectResourceError(await post(path, big), 413, 'Request body is larger than 1mb', null);
    });
  });

  it('404 {error: {message}} for a route that does not exist, or a method a spec path does not have', async () => {
    expectResourceError(await t.http().get('/v2/thread').set('X-API-Key', KEYS.full), 404, 'Cannot GET /v2/thread', null);
    expectResourceError(await t.http().put('/v2/threads').set('X-API-Key', KEYS.full), 404, 'Cannot PUT /v2/threads', null);
  });

  describe('a lost database connection: 503 {error: "Service Unavailable", message: "Database unavailable"} and Retry-After: 1', () => {
    it('on a thread endpoint', async () => {
      const id = t.fakes.threads.seed();
      t.fakes.threads.failNextWith(connectionLost());
      const res = await t.http().get(`/v2/threads/${id}`).set('X-API-Key', KEYS.full);
      expectErrorAnswer(res, 503, { error: 'Service Unavailable', message: 'Database unavailable' });
      expect(res.headers['retry-after']).toBe('1');
    });

    it('on an invoke endpoint', async () => {
      t.fakes.invocation.failNextWith(connectionLost());
      const res = await post(`/${WORKSPACE}/${PROJECT}/helper/${ENVIRONMENT}`, {});
      expectErrorAnswer(res, 503, { error: 'Service Unavailable', message: 'Database unavailable' });
      expect(res.headers['retry-after']).toBe('1');
    });
  });

  it('anything else a service throws: 500 {error: {message: "Internal server error"}}, without its text', async () => {
    t.fakes.messages.failNextWith(new Error('relation "thread_messages" does not exist'));
    const res = await t.http().get('/v2/threads/01990000-0000-7000-8000-000000000000/messages').set('X-API-Key', KEYS.full);
    expectResourceError(res, 500, 'Internal server error', null);
  });

  it('text PostgreSQL refused (U+0000) reaching SQL: 400, not a 500', async () => {
    t.fakes.threads.failNextWith(
      Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { driverError: { code: '22021' } }),
    );
    expectResourceError(
      await post('/v2/threads', {}),
      400,
      'The request holds text that cannot be stored (U+0000 or an unpaired UTF-16 surrogate)',
      null,
    );
  });

  describe('Idempotency-Key on the creating POSTs', () => {
    it("400 for a malformed key, with the endpoint's own message", async () => {
      const reason = ['Idempotency-Key: must be 1 to 255 visible ASCII characters'];
      expectResourceError(await post('/v2/threads', {}).set('Idempotency-Key', 'two words'), 400, 'Invalid request body', reason);
      const threadId = t.fakes.threads.seed();
      expectResourceError(
        await post(`/v2/threads/${threadId}/messages`, { message: { content: 'hi' } }).set('Idempotency-Key', 'x'.repeat(256)),
        400,
        'Invalid request parameters',
        reason,
      );
    });

    it('409 while the first request with the key still runs; 422 for the key with another body; a replay after', async () => {
      let release!: () => void;
      t.fakes.threads.hold = new Promise<void>((resolve) => (release = resolve));
      const started = t.fakes.threads.nextCreateStarted();
      const first = post('/v2/threads', { metadata: { n: 1 } })
        .set('Idempotency-Key', 'controller-tier-1')
        .then((res) => res);
      try {
        await started;
        expectResourceError(
          await post('/v2/threads', { metadata: { n: 1 } }).set('Idempotency-Key', 'controller-tier-1'),
          409,
          'A request with this Idempotency-Key is still being processed',
          null,
        );
      } finally {
        release();
        t.fakes.threads.hold = undefined;
      }
      const answered = await first;
      expect(answered.status).toBe(200);
      expectResourceError(
        await post('/v2/threads', { metadata: { n: 2 } }).set('Idempotency-Key', 'controller-tier-1'),
        422,
        'This Idempotency-Key was already used with a different request',
        null,
      );
      const replay = await post('/v2/threads', { metadata: { n: 1 } }).set('Idempotency-Key', 'controller-tier-1');
      expect({ status: replay.status, body: replay.body, replayed: replay.headers['idempotent-replayed'] }).toEqual({
        status: 200,
        body: answered.body,
        replayed: 'true',
      });
    });
  });
});
