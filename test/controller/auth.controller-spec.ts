import { AppModule } from '../../src/app.module';
import { appGlobalEnhancers, ControllerApp, createControllerApp } from './support/controller-app';
import { SPEC_ENDPOINTS, SpecEndpoint } from './support/endpoints';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { KEYS } from './support/fakes';

/**
 * Spec "Authentication": every endpoint requires `X-API-Key`; an invalid key is
 * `{error: "Unauthorized", message: "Invalid API key"}` (the spec shows it for List Threads; the
 * app's one guard answers it on all twelve). Then the app's own refusals before any handler runs:
 * a key without the route's scope (403), the admin key on a project route (403, or 404 naming an
 * unknown project). The real keys, scopes and projects: test/auth.e2e-spec.ts,
 * test/scopes.e2e-spec.ts, test/admin-acting-project.e2e-spec.ts.
 */
describe('controller tier: authentication on every spec endpoint', () => {
  let t: ControllerApp;

  beforeAll(async () => (t = await createControllerApp()));
  afterAll(() => t.close());

  const send = (endpoint: SpecEndpoint, headers: Record<string, string>) => {
    const req = t.http()[endpoint.method](endpoint.path).set(headers);
    return endpoint.body === undefined ? req : req.send(endpoint.body);
  };
  const serviceCalls = () => [t.fakes.threads, t.fakes.messages, t.fakes.invocation].flatMap((fake) => fake.calls.splice(0));

  it('binds the globals the app module tree declares: today its guard, pipe and filter (a new one is bound too, and named here)', () => {
    const globals = appGlobalEnhancers(AppModule).map((provider) => (provider as { useClass: { name: string } }).useClass.name);
    expect(globals.sort()).toEqual(['ApiExceptionFilter', 'ApiKeyGuard', 'InputValidationPipe']);
  });

  describe.each(SPEC_ENDPOINTS.map((endpoint) => [endpoint.name, endpoint] as const))('%s', (_name, endpoint) => {
    it('401 {error: "Unauthorized", message: "Invalid API key"} without a key, with an unknown one, or an unknown Bearer token', async () => {
      expectInvalidApiKey(await send(endpoint, {}));
      expectInvalidApiKey(await send(endpoint, { 'X-API-Key': 'ck-no-such-key' }));
      expectInvalidApiKey(await send(endpoint, { Authorization: 'Bearer ck-no-such-key' }));
      expectInvalidApiKey(await send(endpoint, { 'X-API-Key': '   ' }));
      expect(serviceCalls()).toEqual([]);
    });

    it(`403 {error: "Forbidden", message} for a key without the route's scope (${endpoint.scope})`, async () => {
      expectErrorAnswer(await send(endpoint, { 'X-API-Key': KEYS.logsOnly }), 403, {
        error: 'Forbidden',
        message: `This API key lacks the scope this endpoint needs: ${endpoint.scope}`,
      });
      expect(serviceCalls()).toEqual([]);
    });

    it('403 for the admin key without X-Parley-Project; 404 "Project not found" naming a project that does not exist', async () => {
      expectErrorAnswer(await send(endpoint, { 'X-API-Key': KEYS.admin }), 403, {
        error: 'Forbidden',
        message: 'This endpoint needs a project API key',
      });
      expectResourceError(
        await send(endpoint, { 'X-API-Key': KEYS.admin, 'X-Parley-Project': 'acme/no-such-project' }),
        404,
        'Project not found',
        null,
      );
      expect(serviceCalls()).toEqual([]);
    });

    it('passes a key that holds the scope on to the handler', async () => {
      const res = await send(endpoint, { 'X-API-Key': KEYS.full });
      expect([401, 403]).not.toContain(res.status);
      expect(serviceCalls().length).toBeGreaterThan(0);
    });
  });

  it('a read-only key reads threads but may not write them', async () => {
    expect((await t.http().get('/v2/threads').set('X-API-Key', KEYS.readOnly)).status).toBe(200);
    expectErrorAnswer(await t.http().post('/v2/threads').set('X-API-Key', KEYS.readOnly).send({}), 403, {
      error: 'Forbidden',
      message: 'This API key lacks the scope this endpoint needs: threads:write',
    });
  });
});
