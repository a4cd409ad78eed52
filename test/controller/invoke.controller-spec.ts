import { ControllerApp, createControllerApp } from './support/controller-app';
import { expectErrorAnswer, expectInvokeInvalidBody } from './support/expect-errors';
import { ENVIRONMENT, KEYS, PROJECT, UNKNOWN_UUID, WORKSPACE } from './support/fakes';

const ASSISTANT = `/${WORKSPACE}/${PROJECT}/helper/${ENVIRONMENT}`;
const PROMPT = `/${WORKSPACE}/${PROJECT}/summarize/${ENVIRONMENT}`;

/**
 * Spec endpoints 1 and 2 (invoke): the 400 `{error: "Invalid request body", issues}` the spec
 * documents, each issue `{code, keys, path, message}`. The body is checked by the real
 * SpecInvokeParser against a deployment the fake InvocationService resolves (an assistant reading
 * `topic` with a default for `tone`; a prompt reading `audience`), so these are the app's own
 * answers, not the fake's. Then the app's other refusals on these paths (404 unknown deployment or
 * thread, 403 another project). Against stored deployments and threads:
 * test/invoke-validation.e2e-spec.ts, test/invoke-assistant.e2e-spec.ts.
 */
describe('controller tier: invoke endpoints (spec 1-2)', () => {
  let t: ControllerApp;

  beforeAll(async () => (t = await createControllerApp()));
  afterAll(() => t.close());

  const invoke = (path: string, body?: unknown) => {
    const req = t.http().post(path).set('X-API-Key', KEYS.full);
    return body === undefined ? req : req.send(body as object);
  };
  const invokeRaw = (path: string, raw: string) =>
    t.http().post(path).set('X-API-Key', KEYS.full).set('Content-Type', 'application/json').send(raw);
  const calls = () => t.fakes.invocation.calls.splice(0);
  beforeEach(() => void calls());

  describe.each([
    ['1. Invoke Assistant', ASSISTANT, ['tone', 'topic']],
    ['2. Invoke Deployed Prompt', PROMPT, ['audience']],
  ])('%s: 400 {error: "Invalid request body", issues}', (_name, path, declared) => {
    const declares = declared.map((name) => `"${name}"`).join(', ');

    it('answers the spec\'s example exactly: an unknown variable is unrecognized_keys at ["variables"]', async () => {
      expectInvokeInvalidBody(await invoke(path, { variables: { mood: 'dry' } }), [
        {
          code: 'unrecognized_keys',
          keys: ['mood'],
          path: ['variables'],
          message: `Unrecognized key "mood" at "variables": the template declares ${declares}`,
        },
      ]);
      // Refused before anything is prepared or run.
      expect(calls()).toEqual(['resolve']);
    });

    it('reports every problem at once: invalid_type with its path, unknown keys at the root', async () => {
      expectInvokeInvalidBody(await invoke(path, { temperature: 'hot', n: 2 }), [
        { code: 'invalid_type', keys: [], path: ['temperature'], message: 'Expected number at "temperature", received string "hot"' },
        { code: 'unrecognized_keys', keys: ['n'], path: [], message: 'Unrecognized key "n"' },
      ]);
    });

    it.each([
      ['temperature above 2', { temperature: 2.01 }, ['temperature']],
      ['a message role', { messages: [{ role: 'robot', content: 'x' }] }, ['messages', '0', 'role']],
      ['a variable value that is not a string', { variables: { [declared[0]]: 5 } }, ['variables', declared[0]]],
      ['stream as a string', { stream: 'true' }, ['stream']],
      ['metadata an array', { metadata: ['a'] }, ['metadata']],
    ])('invalid_type for %s', async (_label, body, at) => {
      const res = await invoke(path, body);
      expectInvokeInvalidBody(res, [{ code: 'invalid_type', keys: [], path: at, message: expect.any(String) }]);
    });

    it('an unknown key nested in a message: unrecognized_keys with the path of its object', async () => {
      expectInvokeInvalidBody(await invoke(path, { messages: [{ role: 'user', content: 'a', refusal: null }] }), [
        { code: 'unrecognized_keys', keys: ['refusal'], path: ['messages', '0'], message: expect.stringContaining('"refusal"') },
      ]);
    });

    it.each([
      ['malformed JSON', '{"messages": [', 'Expected a JSON object body, received text that is not valid JSON'],
      ['a JSON array', '[]', 'Expected object, received array'],
    ])('%s: invalid_type at the root', async (_label, raw, message) => {
      expectInvokeInvalidBody(await invokeRaw(path, raw), [{ code: 'invalid_type', keys: [], path: [], message }]);
    });

    it('?v= that is not a version number: invalid_type at ["v"]', async () => {
      expectInvokeInvalidBody(await invoke(`${path}?v=abc`, {}), [
        { code: 'invalid_type', keys: [], path: ['v'], message: 'Expected a version number such as ?v=1, received "abc"' },
      ]);
    });
  });

  it('2. Invoke Deployed Prompt has no threadId: unrecognized_keys at the root', async () => {
    expectInvokeInvalidBody(await invoke(PROMPT, { threadId: UNKNOWN_UUID }), [
      { code: 'unrecognized_keys', keys: ['threadId'], path: [], message: 'Unrecognized key "threadId"' },
    ]);
  });

  it('1. Invoke Assistant: 200 with the completion and the thread id header', async () => {
    const res = await invoke(ASSISTANT, { variables: { topic: 'tea' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }] });
    expect(res.headers['x-parley-thread-id']).toEqual(expect.any(String));
    expect(calls()).toEqual(['resolve', 'prepare', 'run']);
  });

  it('2. Invoke Deployed Prompt: 200 without a thread id header', async () => {
    const res = await invoke(PROMPT, { variables: { audience: 'kids' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-parley-thread-id']).toBeUndefined();
  });

  describe("the app's other refusals on the invoke paths (not in the spec)", () => {
    it('404 {error: "Thread not found"} for a threadId naming no live thread', async () => {
      // The fake throws the real ThreadNotFound; real deleted and foreign threads: test/invoke-assistant.e2e-spec.ts.
      expectErrorAnswer(await invoke(ASSISTANT, { threadId: UNKNOWN_UUID }), 404, { error: 'Thread not found' });
    });

    it('404 {error: "Prompt deployment not found"} for a slug or environment with no deployment', async () => {
      for (const path of [`/${WORKSPACE}/${PROJECT}/nothing-here/${ENVIRONMENT}`, `/${WORKSPACE}/${PROJECT}/helper/staging`]) {
        expectErrorAnswer(await invoke(path, {}), 404, { error: 'Prompt deployment not found' });
      }
    });

    it("403 for a path naming another workspace or project than the key's", async () => {
      for (const path of [`/${WORKSPACE}/other/helper/${ENVIRONMENT}`, `/other/${PROJECT}/helper/${ENVIRONMENT}`]) {
        expectErrorAnswer(await invoke(path, {}), 403, { error: 'Forbidden', message: 'API key does not belong to this project' });
      }
      expect(calls()).toEqual([]);
    });

    it('400 {error: "Bad Request", message} for a malformed Idempotency-Key', async () => {
      expectErrorAnswer(await invoke(ASSISTANT, {}).set('Idempotency-Key', 'two words'), 400, {
        error: 'Bad Request',
        message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
      });
    });
  });
});
