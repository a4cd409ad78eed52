import { anthropicError, anthropicJson, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import { FakeUpstream, openaiError, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { refusedUrl } from './fakes/fault-modes';
import { createProject, TestProject } from './support/factories';
import { expectResourceError } from './support/http';
import { addProviderCredential, INVOKE_APP_ENV } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * POST /v2/provider-credentials/{name}/test (docs/providers.md, "Testing a provider") against fake
 * upstreams on loopback that fail the way providers do: a wrong key (401, the key quoted back), a
 * server error (500), no answer at all (timeout), nothing listening (connection refused), a
 * redirect, a web page; the outbound policy's refusal; a server variable the operator did not lend
 * or the server lacks. Each is a 200 with `ok: false` and a sentence, one request upstream (no
 * retries), never the key.
 */
const PROVIDER_TIMEOUT_MS = 500;
const BOUND_VARIABLE = 'PARLEY_PROVIDER_PROBE_TEST_KEY';
const OPENAI_KEY = 'sk-probe-openai-secret-0123456789';
const ANTHROPIC_KEY = 'sk-ant-probe-secret-0123456789';

describe('provider connection test', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  const host = (fake: FakeUpstream) => new URL(fake.url).host;

  beforeAll(async () => {
    openai = await startFakeOpenAIUpstream();
    anthropic = await startFakeAnthropicUpstream();
    t = await createTestApp({
      ...INVOKE_APP_ENV,
      PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      // Lent to the fakes' host only: a project key may name it for them.
      PROVIDER_KEY_BINDINGS: `${BOUND_VARIABLE}=127.0.0.1`,
    });
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'oai', type: 'openai', baseUrl: openai.url, apiKey: OPENAI_KEY });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anthropic.url, apiKey: ANTHROPIC_KEY });
  });
  afterAll(async () => {
    // Read at boot only; the next file this worker runs must not inherit them.
    delete process.env.PROVIDER_KEY_BINDINGS;
    delete process.env[BOUND_VARIABLE];
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  const test = (name: string, key = p.key) => t.http().post(`/v2/provider-credentials/${name}/test`).set('X-API-Key', key);
  /** The answer's fields, and that no key is anywhere in it. */
  const tested = async (name: string) => {
    const res = await test(name);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['latencyMs', 'message', 'name', 'object', 'ok', 'status']);
    expect(res.body).toMatchObject({ name, object: 'provider_credential.test' });
    expect(Number.isInteger(res.body.latencyMs) && res.body.latencyMs >= 0).toBe(true);
    expect(res.text).not.toContain(OPENAI_KEY);
    expect(res.text).not.toContain(ANTHROPIC_KEY);
    return res.body as { ok: boolean; status: number | null; latencyMs: number; message: string };
  };
  /** Runs `probe` and returns the requests the fake received meanwhile. */
  const requestsDuring = async <T>(fake: FakeUpstream, probe: () => Promise<T>) => {
    const before = fake.requests.length;
    const result = await probe();
    return { result, requests: fake.requests.slice(before) };
  };

  it('an OpenAI-compatible provider: GET {baseUrl}/models with its key, and how many models it lists', async () => {
    openai.setNext(
      openaiJson({
        object: 'list',
        data: [
          { id: 'gpt-a', object: 'model' },
          { id: 'gpt-b', object: 'model' },
        ],
      }),
    );
    const { result, requests } = await requestsDuring(openai, () => tested('oai'));
    expect(result).toMatchObject({ ok: true, status: 200, message: `Connected to ${host(openai)}: 2 models listed.` });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(requests[0].headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('an Anthropic provider: GET {baseUrl}/v1/models?limit=1 with x-api-key and anthropic-version', async () => {
    anthropic.setNext(
      anthropicJson({ data: [{ id: 'claude-x', type: 'model' }], has_more: true, first_id: 'claude-x', last_id: 'claude-x' }),
    );
    const { result, requests } = await requestsDuring(anthropic, () => tested('claude'));
    expect(result).toMatchObject({ ok: true, status: 200, message: `Connected to ${host(anthropic)}: 1 model listed.` });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'GET', path: '/v1/models?limit=1' });
    expect(requests[0].headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(requests[0].headers['anthropic-version']).toEqual(expect.any(String));
    expect(requests[0].headers.authorization).toBeUndefined();
  });

  it("a refused key (401) is ok: false with the provider's reason, the key it quoted redacted", async () => {
    openai.setNext(openaiError(401, `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://example.com.`));
    const result = await tested('oai');
    expect(result).toMatchObject({
      ok: false,
      status: 401,
      message: `${host(openai)} refused the key (401): Incorrect API key provided: [redacted]. You can find your API key at https://example.com.`,
    });
    anthropic.setNext(anthropicError(401, 'authentication_error', 'invalid x-api-key'));
    expect(await tested('claude')).toMatchObject({
      ok: false,
      status: 401,
      message: `${host(anthropic)} refused the key (401): invalid x-api-key`,
    });
  });

  it('a server error (500) is ok: false after one request: a test is never retried', async () => {
    openai.setNext(openaiError(500, 'The server had an error while processing your request.'));
    const { result, requests } = await requestsDuring(openai, () => tested('oai'));
    expect(result).toMatchObject({
      ok: false,
      status: 500,
      message: `${host(openai)} answered 500: The server had an error while processing your request.`,
    });
    expect(requests).toHaveLength(1);
    anthropic.setNext(anthropicError(529, 'overloaded_error', 'Overloaded'));
    expect(await tested('claude')).toMatchObject({ ok: false, status: 529, message: `${host(anthropic)} answered 529: Overloaded` });
  });

  it('no answer is a timeout (PROVIDER_TIMEOUT_MS, 0.5 s here): ok: false, no status', async () => {
    openai.setNext({ type: 'hang' });
    const started = Date.now();
    const result = await tested('oai');
    expect(result).toMatchObject({ ok: false, status: null, message: `${host(openai)} did not answer within 0.5 s.` });
    expect(result.latencyMs).toBeGreaterThanOrEqual(PROVIDER_TIMEOUT_MS - 50);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('nothing listening is "connection refused"; a private address the operator did not allow is the outbound policy', async () => {
    const dead = await refusedUrl();
    await addProviderCredential(t, p, { name: 'dead', type: 'openai', baseUrl: `${dead}/v1`, apiKey: OPENAI_KEY });
    expect(await tested('dead')).toMatchObject({
      ok: false,
      status: null,
      message: `Could not reach ${new URL(dead).host}: connection refused`,
    });
    // Cloud metadata is never in PROVIDER_ALLOWED_HOSTS here: refused before any connection.
    await addProviderCredential(t, p, { name: 'metadata', type: 'openai', baseUrl: 'http://169.254.169.254/v1', apiKey: OPENAI_KEY });
    expect(await tested('metadata')).toMatchObject({
      ok: false,
      status: null,
      message: "Could not reach 169.254.169.254: the host is not allowed by the operator's outbound policy (PROVIDER_ALLOWED_HOSTS)",
    });
  });

  it('a redirect, a web page and a 404 say to check the base URL', async () => {
    openai.setNext({ type: 'text', status: 302, body: '', headers: { location: 'https://example.com/' } });
    expect(await tested('oai')).toMatchObject({
      ok: false,
      status: 302,
      message: `${host(openai)} answered 302, a redirect, which Parley does not follow: check the base URL.`,
    });
    openai.setNext({ type: 'text', status: 200, body: '<!doctype html><title>Welcome</title>', headers: { 'content-type': 'text/html' } });
    expect(await tested('oai')).toMatchObject({
      ok: false,
      status: 200,
      message: `${host(openai)} answered 200 with something that is not a model list: check the base URL (up to and including /v1).`,
    });
    openai.setNext(openaiError(404, 'Not found'));
    expect(await tested('oai')).toMatchObject({
      ok: false,
      status: 404,
      message: `${host(openai)} answered 404 (Not found): check the base URL (up to and including /v1).`,
    });
  });

  it("a key from the server's environment: none sent while the server lacks it, then the variable's value", async () => {
    const res = await t
      .http()
      .post('/v2/provider-credentials')
      .set('X-API-Key', p.key)
      .send({ name: 'from-env', type: 'openai', baseUrl: openai.url, apiKeyEnv: BOUND_VARIABLE })
      .expect(200);
    expect(res.body.apiKeySource).toBe('env');
    const { result, requests } = await requestsDuring(openai, () => tested('from-env'));
    expect(result).toEqual({
      name: 'from-env',
      object: 'provider_credential.test',
      ok: false,
      status: null,
      latencyMs: 0,
      message: `No key is sent: the server has no value for ${BOUND_VARIABLE} (set it on every replica).`,
    });
    expect(requests).toEqual([]);
    process.env[BOUND_VARIABLE] = 'sk-from-the-environment-0123';
    openai.setNext(openaiJson({ object: 'list', data: [] }));
    const second = await requestsDuring(openai, () => tested('from-env'));
    expect(second.result).toMatchObject({ ok: true, status: 200, message: `Connected to ${host(openai)}: 0 models listed.` });
    expect(second.requests[0].headers.authorization).toBe('Bearer sk-from-the-environment-0123');
  });

  it('the built-in local provider is always ok; an unknown one is 404; a key without providers:write is 403', async () => {
    expect(await tested('local')).toEqual({
      name: 'local',
      object: 'provider_credential.test',
      ok: true,
      status: null,
      latencyMs: 0,
      message: 'The built-in local provider calls nothing.',
    });
    expectResourceError(await test('nope'), 404, 'Provider credential not found');
    expectResourceError(await test('Not A Name'), 404, 'Provider credential not found');
    const viewer = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ name: 'viewer', preset: 'viewer' })
      .expect(200);
    const refused = await test('oai', viewer.body.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Forbidden', message: 'This API key lacks the scope this endpoint needs: providers:write' });
    // Another project's credential is not found: the route reads the caller's project only.
    const other = await createProject(t);
    expectResourceError(await test('oai', other.key), 404, 'Provider credential not found');
  });
});
