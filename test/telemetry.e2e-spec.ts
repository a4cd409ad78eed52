import OpenAI from 'openai';

import { openaiCompletion, openaiJson } from './fakes/fake-openai-upstream';
import { uniqueSlug } from './support/factories';
import { deploy, invokePath } from './support/invoke-factories';
import {
  callerTrace,
  CLIENT,
  expectNamesPublished,
  INTERNAL,
  PROVIDER_KEYS,
  spansByRole,
  spansText,
  TelemetryWorld,
  telemetryWorld,
} from './support/telemetry-factories';

/**
 * Issue 45: a call made with a traceparent produces spans in the caller's trace, in the GenAI
 * semantic conventions (docs/observability.md), on every surface; each attribute and metric name
 * under gen_ai.* is one the conventions' registry, as published in @opentelemetry/semantic-conventions,
 * defines. Exported over OTLP/HTTP with protobuf (the default) to a loopback receiver that decodes it.
 * Streams, failed attempts, doNotRecord and embeddings: test/telemetry-attempts.e2e-spec.ts.
 */
const METRICS = ['gen_ai.client.token.usage', 'gen_ai.client.operation.duration'];
const MIN_NAMES = 15;

describe('telemetry: spans and metrics in the GenAI conventions', () => {
  let w: TelemetryWorld;
  const user = (content: string) => ({ role: 'user' as const, content });

  beforeAll(async () => {
    w = await telemetryWorld();
  });
  afterAll(() => w?.close());

  it('a deployed prompt: the server span continues the caller, the gen_ai span is its child with the call in the conventions', async () => {
    const slug = uniqueSlug('traced');
    await deploy(w.t, w.p, { slug, provider: 'alpha', model: 'gpt-x', parameters: { temperature: 0.2, max_tokens: 64 } });
    w.alpha.setNext(
      openaiJson(
        openaiCompletion({
          content: 'traced answer',
          model: 'gpt-x-2025',
          usage: {
            prompt_tokens: 20,
            completion_tokens: 8,
            prompt_tokens_details: { cached_tokens: 5 },
            completion_tokens_details: { reasoning_tokens: 3 },
          },
        }),
      ),
    );
    const caller = callerTrace();
    const res = await w.post(invokePath(w.p, slug), { messages: [user('trace me please')] }, caller.traceparent);
    expect(res.status).toBe(200);
    const logId = res.headers.get('x-parley-log-id')!;
    const spans = await w.traceOf(caller.traceId, 3);
    const { server, genAi, named } = spansByRole(spans);
    expect(server).toHaveLength(1);
    expect(server[0].parentSpanId).toBe(caller.parentId);
    expect(server[0].attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/:workspace/:project/:slug/:environment',
      'http.response.status_code': 200,
      'url.path': invokePath(w.p, slug),
    });
    expect(server[0].name).toBe('POST /:workspace/:project/:slug/:environment');
    expect(genAi).toHaveLength(1);
    const [call] = genAi;
    expect(call).toMatchObject({ name: 'chat gpt-x', kind: CLIENT, parentSpanId: server[0].spanId });
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-x',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 64,
      'gen_ai.response.model': 'gpt-x-2025',
      'gen_ai.response.id': 'chatcmpl-fake-1',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 8,
      'gen_ai.usage.cache_read.input_tokens': 5,
      'gen_ai.usage.reasoning.output_tokens': 3,
      'gen_ai.prompt.name': slug,
      'parley.prompt.version': 1,
      'parley.environment': 'production',
      'parley.log_id': logId,
      'parley.workspace': w.p.workspace,
      'parley.project': w.p.project,
      'parley.provider': 'alpha',
      'parley.attempt': 1,
      'server.address': '127.0.0.1',
    });
    expect(call.attributes).not.toHaveProperty('gen_ai.conversation.id');
    // Content was asked for (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT): in the conventions' message shapes.
    expect(JSON.parse(call.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You are terse.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'trace me please' }] },
    ]);
    expect(JSON.parse(call.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'traced answer' }], finish_reason: 'stop' },
    ]);
    const [write] = named('parley.durable_write');
    expect(write).toMatchObject({ kind: INTERNAL, parentSpanId: server[0].spanId });
    expect(write.attributes).toMatchObject({ 'parley.log_id': logId, 'parley.write.turns': false });
    expect(server[0].resource).toMatchObject({ 'service.name': 'parley-under-test', 'deployment.environment.name': 'e2e' });
    // Secrets never: not the provider's key, not the caller's.
    const text = spansText(spans);
    expect(text).not.toContain(PROVIDER_KEYS.alpha);
    expect(text).not.toContain(w.p.key);
    // The request log knows the trace (GET /v2/logs/{id}, and ?traceId=).
    const log = await w.t.http().get(`/v2/logs/${logId}`).set('X-API-Key', w.p.key).expect(200);
    expect(log.body.traceId).toBe(caller.traceId);
  });

  it('an assistant turn: gen_ai.conversation.id is the thread, and the write holds the turns', async () => {
    const slug = uniqueSlug('traced-assistant');
    await deploy(w.t, w.p, { slug, kind: 'assistant' });
    const first = await w.post(invokePath(w.p, slug), { messages: [user('open the thread')] }, callerTrace().traceparent);
    expect(first.status).toBe(200);
    const threadId = first.headers.get('x-parley-thread-id')!;
    const caller = callerTrace();
    const res = await w.post(invokePath(w.p, slug), { threadId, messages: [user('continue it')] }, caller.traceparent);
    expect(res.status).toBe(200);
    const { genAi, named } = spansByRole(await w.traceOf(caller.traceId, 3));
    expect(genAi[0].attributes).toMatchObject({
      'gen_ai.conversation.id': threadId,
      'gen_ai.provider.name': 'parley.local',
      'gen_ai.request.model': 'echo',
      'gen_ai.prompt.name': slug,
    });
    expect(named('parley.durable_write')[0].attributes).toMatchObject({ 'parley.write.turns': true });
  });

  it('/v1/chat/completions through the official SDK, and /v1/responses on a conversation', async () => {
    const slug = uniqueSlug('traced-sdk');
    await deploy(w.t, w.p, { slug, kind: 'assistant', provider: 'alpha', model: 'gpt-sdk' });
    const chatTrace = callerTrace();
    const chat = new OpenAI({
      baseURL: `${w.base}/v1`,
      apiKey: w.p.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: chatTrace.traceparent },
    });
    const completion = await chat.chat.completions.create({ model: `${slug}@production`, messages: [user('via the sdk')] });
    expect(completion.choices[0].message.content).toBe('via the sdk');
    const chatSpans = spansByRole(await w.traceOf(chatTrace.traceId, 3));
    expect(chatSpans.server[0].name).toBe('POST /v1/chat/completions');
    expect(chatSpans.genAi[0]).toMatchObject({ name: 'chat gpt-sdk', parentSpanId: chatSpans.server[0].spanId });

    const conversation = await chat.conversations.create();
    const responsesTrace = callerTrace();
    const responses = new OpenAI({
      baseURL: `${w.base}/v1`,
      apiKey: w.p.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: responsesTrace.traceparent },
    });
    const response = await responses.responses.create({ model: slug, input: 'on the conversation', conversation: conversation.id });
    expect(response.output_text).toBe('on the conversation');
    const responseSpans = spansByRole(await w.traceOf(responsesTrace.traceId, 3));
    expect(responseSpans.server[0].name).toBe('POST /v1/responses');
    expect(responseSpans.genAi[0].attributes).toMatchObject({
      'gen_ai.conversation.id': conversation.id,
      'gen_ai.request.model': 'gpt-sdk',
    });
  });

  it("a background response: the job's spans, on whichever instance runs it, join the request that queued it", async () => {
    const slug = uniqueSlug('traced-background');
    await deploy(w.t, w.p, { slug });
    const caller = callerTrace();
    const sdk = new OpenAI({
      baseURL: `${w.base}/v1`,
      apiKey: w.p.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: caller.traceparent },
    });
    const queued = await sdk.responses.create({ model: slug, input: 'later', background: true });
    const spans = await w.otlp.waitForSpans(
      (all) => all.filter((s) => s.traceId === caller.traceId),
      (found) => found.some((s) => s.kind === CLIENT) && found.some((s) => s.name === 'parley.durable_write'),
    );
    const { server, genAi } = spansByRole(spans);
    expect(server[0].name).toBe('POST /v1/responses');
    expect(genAi[0]).toMatchObject({ name: 'chat echo', parentSpanId: server[0].spanId });
    expect((await sdk.responses.retrieve(queued.id)).status).toBe('completed');
  });

  it('every gen_ai.* name sent, span attribute or metric, is in the published registry; the rest of a gen_ai span is parley.* or a stable convention', async () => {
    await expectNamesPublished(w, METRICS, MIN_NAMES);
  });
});
