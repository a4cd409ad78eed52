import Anthropic, { APIError, InternalServerError, RateLimitError } from '@anthropic-ai/sdk';

import { anthropicError, anthropicEvents, anthropicStream, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import { FakeUpstream, openaiChunks, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, failNextTurnWrite, INVOKE_APP_ENV, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const TIMEOUT_MS = 800;
const CLAUDE = 'claude-sonnet-4-20250514';

type Frame = { event: string; data: any };

/**
 * Issue 46: a streamed /v1/messages that fails after its headers ends with one Anthropic `error`
 * event, never a clean message_stop (upstream cut mid-stream, silent past PROVIDER_TIMEOUT_MS, an
 * upstream error event, a reply that cannot be stored); one that fails before its first event is
 * a plain Anthropic error answer. Each is logged with its status.
 */
describe('/v1/messages streams that fail: an Anthropic error event, never message_stop', () => {
  let t: TestApp;
  let p: TestProject;
  let baseUrl: string;
  let client: Anthropic;
  let anthropicFake: FakeUpstream;
  let openaiFake: FakeUpstream;

  const user = (content: string) => ({ role: 'user' as const, content });
  const lastLog = async () => (await requestLogRows(t, p.projectId)).at(-1)!;
  /** The stream as sent: each frame's event name and data. */
  const frames = async (model: string): Promise<Frame[]> => {
    const res = await fetch(`${baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': p.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 100, stream: true, messages: [user('x')] }),
    });
    expect(res.status).toBe(200);
    return (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => {
        const [event, data] = frame.split('\n');
        return { event: event.slice('event: '.length), data: JSON.parse(data.slice('data: '.length)) };
      });
  };
  /** The SDK's view: finalMessage() rejects with the APIError of the error event. */
  const sdkFailure = (model: string) =>
    client.messages
      .stream({ model, max_tokens: 100, messages: [user('x')] })
      .finalMessage()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
  const cutEvents = () => anthropicEvents({ text: ['Hel', 'lo'], model: CLAUDE }).slice(0, 4);

  beforeAll(async () => {
    anthropicFake = await startFakeAnthropicUpstream();
    openaiFake = await startFakeOpenAIUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS), PROVIDER_MAX_RETRIES: '0' });
    baseUrl = await listen(t);
    p = await createProject(t);
    client = new Anthropic({ baseURL: baseUrl, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anthropicFake.url, apiKey: 'sk-ant' });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: openaiFake.url, apiKey: 'sk-up' });
    await deploy(t, p, { slug: 'keeper', kind: 'assistant' });
  });
  afterAll(async () => {
    await t.close();
    await anthropicFake.close();
    await openaiFake.close();
  });

  /** What came before the failure, then exactly one error event of that type and message, and no message_stop. */
  function expectFailedStream(sent: Frame[], type: string, message: string | RegExp): void {
    expect(sent.map((frame) => frame.event)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'error']);
    expect(sent[3].data.delta).toEqual({ type: 'text_delta', text: 'Hel' });
    expect(sent[4].data).toEqual({
      type: 'error',
      error: { type, message: expect.stringMatching(message) },
      request_id: expect.any(String),
    });
  }

  it('ends with an api_error event when the Anthropic upstream drops the connection mid-stream', async () => {
    anthropicFake.setNext(anthropicStream(cutEvents(), { dropConnection: true }));
    expectFailedStream(await frames(`claude/${CLAUDE}`), 'api_error', /^anthropic upstream /);
    expect(await lastLog()).toMatchObject({
      status: 502,
      stream: true,
      prompt_slug: `claude/${CLAUDE}`,
      usage_partial: true,
      prompt_tokens: 12,
    });

    anthropicFake.setNext(anthropicStream(cutEvents(), { dropConnection: true }));
    const failure = await sdkFailure(`claude/${CLAUDE}`);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('ends with a timeout_error event when the upstream falls silent past PROVIDER_TIMEOUT_MS', async () => {
    anthropicFake.setNext(anthropicStream(cutEvents(), { keepOpen: true }));
    const started = Date.now();
    expectFailedStream(await frames(`claude/${CLAUDE}`), 'timeout_error', `anthropic upstream sent nothing for ${TIMEOUT_MS} ms`);
    // undici's body timeout is a coarse timer (node_modules/undici/lib/util/timers.js): it may fire a few hundred ms early.
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS / 2);
    expect(await lastLog()).toMatchObject({ status: 504, stream: true });
  });

  it("ends with an error event when the upstream sends one (Anthropic's overloaded_error mid-stream)", async () => {
    const overloaded = { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
    anthropicFake.setNext(anthropicStream([...cutEvents(), overloaded]));
    expectFailedStream(await frames(`claude/${CLAUDE}`), 'api_error', 'anthropic upstream error: Overloaded');
    expect(await lastLog()).toMatchObject({ status: 502, stream: true, error: 'anthropic upstream error: Overloaded' });

    anthropicFake.setNext(anthropicStream([...cutEvents(), overloaded]));
    const failure = (await sdkFailure(`claude/${CLAUDE}`)) as APIError;
    expect(failure).toBeInstanceOf(APIError);
    expect(failure.error).toMatchObject({ error: { type: 'api_error', message: 'anthropic upstream error: Overloaded' } });
  });

  it('ends with an error event when an OpenAI-format upstream drops mid-stream', async () => {
    const chunks = openaiChunks({ content: ['Hel', 'lo'] }).slice(0, 2);
    openaiFake.setNext({ type: 'sse', events: chunks.map((data) => ({ data })), dropConnection: true });
    expectFailedStream(await frames('upstream/gpt-4o'), 'api_error', /^openai upstream /);
    expect(await lastLog()).toMatchObject({ status: 502, stream: true, provider_name: 'upstream' });
  });

  it('ends with an overloaded_error (503) event when the reply cannot be stored', async () => {
    failNextTurnWrite();
    const res = await fetch(`${baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': p.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'keeper', max_tokens: 100, stream: true, messages: [user('kept nowhere')] }),
    });
    const events = (await res.text()).split('\n\n').filter(Boolean);
    jest.restoreAllMocks();
    expect(events.map((frame) => frame.split('\n')[0]).slice(-2)).toEqual(['event: content_block_stop', 'event: error']);
    expect(JSON.parse(events.at(-1)!.split('\n')[1].slice('data: '.length))).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Database unavailable' },
    });
  });

  it('answers a failure before the first event as a plain Anthropic error: 502 api_error, 429 with Retry-After', async () => {
    anthropicFake.setNext(anthropicError(529, 'overloaded_error', 'Overloaded'));
    const failed = await sdkFailure(`claude/${CLAUDE}`);
    expect(failed).toBeInstanceOf(InternalServerError);
    expect((failed as APIError).status).toBe(502);
    expect((failed as APIError).error).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'anthropic upstream answered 529: Overloaded' },
      request_id: expect.any(String),
    });

    anthropicFake.setNext(anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '7' }));
    const limited = (await client.messages
      .create({ model: `claude/${CLAUDE}`, max_tokens: 10, messages: [user('x')] })
      .catch((e) => e)) as APIError;
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.headers?.get('retry-after')).toBe('7');
    expect(limited.error).toMatchObject({ error: { type: 'rate_limit_error', message: 'anthropic upstream answered 429: slow down' } });
    expect(await lastLog()).toMatchObject({ status: 429, stream: false });
  });
});
