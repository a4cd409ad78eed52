import OpenAI from 'openai';

import { openaiChunks, openaiError, openaiStream } from './fakes/fake-openai-upstream';
import { uniqueSlug } from './support/factories';
import { deploy, invokePath } from './support/invoke-factories';
import {
  callerTrace,
  expectNamesPublished,
  spansByRole,
  spansText,
  STATUS_ERROR,
  TelemetryWorld,
  telemetryWorld,
} from './support/telemetry-factories';

/**
 * Issue 45, the attempts of a call (docs/observability.md, "Spans"): a stream's time to its first
 * chunk, a failed attempt and the one that served, a call that fails, a doNotRecord call without
 * its messages, an embeddings call; and the names they send, held against the published registry.
 */
const METRICS = ['gen_ai.client.token.usage', 'gen_ai.client.operation.duration', 'gen_ai.client.operation.time_to_first_chunk'];
const MIN_NAMES = 15;

describe('telemetry: attempts, streams and failures', () => {
  let w: TelemetryWorld;
  const user = (content: string) => ({ role: 'user' as const, content });

  beforeAll(async () => {
    w = await telemetryWorld();
  });
  afterAll(() => w?.close());

  it('a stream: the time to its first chunk, as an attribute and as a child span', async () => {
    const slug = uniqueSlug('traced-stream');
    await deploy(w.t, w.p, { slug, provider: 'alpha', model: 'gpt-stream' });
    w.alpha.setNext(
      openaiStream(openaiChunks({ content: ['one ', 'two'], model: 'gpt-stream', usage: { prompt_tokens: 9, completion_tokens: 2 } }), {
        delayMs: 20,
      }),
    );
    const caller = callerTrace();
    const res = await w.post(invokePath(w.p, slug), { stream: true, messages: [user('stream it')] }, caller.traceparent);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('[DONE]');
    const spans = await w.traceOf(caller.traceId, 4);
    const { genAi, named } = spansByRole(spans);
    expect(genAi[0].attributes).toMatchObject({
      'gen_ai.request.stream': true,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 9,
      'gen_ai.usage.output_tokens': 2,
    });
    expect(genAi[0].attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    const [first] = named('parley.time_to_first_chunk');
    expect(first.parentSpanId).toBe(genAi[0].spanId);
    expect(first.endNs).toBeLessThanOrEqual(genAi[0].endNs);
    expect(JSON.parse(genAi[0].attributes['gen_ai.output.messages'] as string)[0].parts).toEqual([{ type: 'text', content: 'one two' }]);
  });

  it('a failed attempt: a span with error.type, then the target that served; a call that fails is an error on both spans', async () => {
    const slug = uniqueSlug('traced-routed');
    await deploy(w.t, w.p, {
      slug,
      routing: {
        strategy: 'priority',
        targets: [
          { provider: 'alpha', model: `${slug}-a` },
          { provider: 'beta', model: `${slug}-b` },
        ],
      },
    });
    w.alpha.setNext(openaiError(500, 'alpha is down'));
    const caller = callerTrace();
    const res = await w.post(invokePath(w.p, slug), { messages: [user('fall over')] }, caller.traceparent);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-parley-attempts')).toBe('2');
    const { server, genAi } = spansByRole(await w.traceOf(caller.traceId, 4));
    expect(genAi.map((s) => [s.name, s.attributes['parley.provider'], s.parentSpanId])).toEqual([
      [`chat ${slug}-a`, 'alpha', server[0].spanId],
      [`chat ${slug}-b`, 'beta', server[0].spanId],
    ]);
    expect(genAi[0].attributes['error.type']).toBe('server_error');
    expect(genAi[0].status.code).toBe(STATUS_ERROR);
    expect(genAi[1].attributes).not.toHaveProperty('error.type');

    const plain = uniqueSlug('traced-failing');
    await deploy(w.t, w.p, { slug: plain, provider: 'beta', model: 'gpt-down' });
    w.beta.setNext(openaiError(503, 'overloaded'));
    const failing = callerTrace();
    expect((await w.post(invokePath(w.p, plain), { messages: [user('fail')] }, failing.traceparent)).status).toBe(502);
    const failed = spansByRole(await w.traceOf(failing.traceId, 3));
    expect(failed.genAi[0].attributes['error.type']).toBe('server_error');
    expect(failed.server[0].attributes).toMatchObject({ 'http.response.status_code': 502, 'error.type': '502' });
    expect(failed.server[0].status.code).toBe(STATUS_ERROR);
  });

  it('doNotRecord: the call is traced, its messages are not, whatever the operator asked', async () => {
    const slug = uniqueSlug('traced-private');
    await deploy(w.t, w.p, { slug, provider: 'alpha', model: 'gpt-private' });
    const caller = callerTrace();
    const res = await w.post(invokePath(w.p, slug), { doNotRecord: true, messages: [user('PRIVATE-words-here')] }, caller.traceparent);
    expect(res.status).toBe(200);
    const spans = await w.traceOf(caller.traceId, 3);
    const { genAi } = spansByRole(spans);
    expect(genAi[0].attributes).toMatchObject({ 'gen_ai.usage.output_tokens': expect.any(Number), 'gen_ai.response.model': 'gpt-private' });
    expect(genAi[0].attributes).not.toHaveProperty('gen_ai.input.messages');
    expect(genAi[0].attributes).not.toHaveProperty('gen_ai.output.messages');
    expect(spansText(spans)).not.toContain('PRIVATE-words-here');
  });

  it('/v1/embeddings: an embeddings span, input tokens only', async () => {
    const caller = callerTrace();
    const sdk = new OpenAI({
      baseURL: `${w.base}/v1`,
      apiKey: w.p.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: caller.traceparent },
    });
    const embedded = await sdk.embeddings.create({ model: 'alpha/embed-x', input: ['one', 'two'] });
    expect(embedded.data).toHaveLength(2);
    const { server, genAi } = spansByRole(await w.traceOf(caller.traceId, 3));
    expect(server[0].name).toBe('POST /v1/embeddings');
    expect(genAi[0]).toMatchObject({ name: 'embeddings embed-x', parentSpanId: server[0].spanId });
    expect(genAi[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'embed-x',
      'gen_ai.response.model': 'embed-x',
      'gen_ai.usage.input_tokens': 6,
    });
    expect(genAi[0].attributes).not.toHaveProperty('gen_ai.usage.output_tokens');
    expect(genAi[0].attributes).not.toHaveProperty('gen_ai.input.messages');
  });

  it('every gen_ai.* name sent, span attribute or metric, is in the published registry; the rest of a gen_ai span is parley.* or a stable convention', async () => {
    await expectNamesPublished(w, METRICS, MIN_NAMES);
  });
});
