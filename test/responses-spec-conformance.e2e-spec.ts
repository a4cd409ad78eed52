import {
  FakeUpstream,
  openaiChunks,
  openaiCompletion,
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, listen } from './support/invoke-factories';
import { expectResponseResource, expectStreamingEvents } from './support/open-responses-schema';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Every Response object and streaming event of /v1/responses against the Open Responses
 * specification's schemas (test/support/open-responses-schema.ts), as a plain HTTP client sees
 * them: POST, streamed, GET, replayed through an Idempotency-Key, and the cases of the
 * specification's compliance suite (text, system prompt, multi-turn, image input, tool calls,
 * streamed or not) on local/echo and through a fake OpenAI-compatible upstream.
 */
describe('responses: Open Responses conformance', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  let fake: FakeUpstream;
  const weather = {
    type: 'function',
    name: 'get_weather',
    description: 'Get the current weather for a location',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  };
  const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
    await deploy(t, p, { slug: 'tuned', parameters: { temperature: 0.3, top_p: 0.8, max_tokens: 50, presence_penalty: 0.5 } });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const post = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${base}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.key}`, ...headers },
      body: JSON.stringify(body),
    });

  async function create(body: object, headers: Record<string, string> = {}) {
    const res = await post(body, headers);
    const json = await res.json();
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(json)}`);
    return { res, response: expectResponseResource(json) };
  }

  /** The events of a streamed response, each checked against its schema; the last response.* snapshot is the final Response. */
  async function stream(body: object, headers: Record<string, string> = {}) {
    const res = await post({ ...body, stream: true }, headers);
    expect(res.status).toBe(200);
    const text = await res.text();
    const events = text
      .split('\n\n')
      .map((frame) =>
        frame
          .split('\n')
          .find((line) => line.startsWith('data: '))
          ?.slice(6),
      )
      .filter((data): data is string => data !== undefined && data !== '[DONE]')
      .map((data) => JSON.parse(data) as { type: string; sequence_number: number; response?: unknown });
    expectStreamingEvents(events);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const final = [...events]
      .reverse()
      .find((e) => e.type === 'response.completed' || e.type === 'response.incomplete' || e.type === 'response.failed');
    return { res, events, final: expectResponseResource(final?.response) };
  }

  it('POST and GET: every required field, the effective sampling parameters as numbers, completed_at', async () => {
    const { response } = await create({
      model: 'local/echo',
      input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }],
    });
    expect(response).toMatchObject({
      status: 'completed',
      temperature: 1,
      top_p: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 0,
      max_tool_calls: null,
      background: false,
      service_tier: 'default',
      reasoning: { effort: null, summary: null },
      safety_identifier: null,
      prompt_cache_key: null,
      user: null,
      metadata: {},
      tools: [],
      tool_choice: 'auto',
      truncation: 'disabled',
      store: true,
    });
    expect(response.completed_at).toBeGreaterThanOrEqual(response.created_at);
    const got = await fetch(`${base}/v1/responses/${response.id}`, { headers: { authorization: `Bearer ${p.key}` } });
    expect(expectResponseResource(await got.json())).toEqual(response);
  });

  it("a deployment's stored settings are the effective parameters; request values win and are echoed", async () => {
    const { response } = await create({
      prompt: { id: 'tuned' },
      input: 'hi',
      frequency_penalty: 0.25,
      safety_identifier: 'user-hash-1',
      prompt_cache_key: 'k1',
      service_tier: 'auto',
      max_tool_calls: 2,
      user: 'u-1',
    });
    expect(response).toMatchObject({
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 50,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      safety_identifier: 'user-hash-1',
      prompt_cache_key: 'k1',
      service_tier: 'default',
      max_tool_calls: 2,
      user: 'u-1',
    });
  });

  it('safety_identifier, prompt_cache_key, service_tier and the penalties reach an OpenAI-compatible upstream', async () => {
    await create({
      model: 'upstream/gpt-x',
      input: 'hi',
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      safety_identifier: 'sid',
      prompt_cache_key: 'pck',
      service_tier: 'flex',
    });
    expect(fake.requests.at(-1)!.body).toMatchObject({
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      safety_identifier: 'sid',
      prompt_cache_key: 'pck',
      service_tier: 'flex',
    });
  });

  it('stream: response.created, in_progress and completed carry the whole Response; every event as its schema', async () => {
    const { events, final } = await stream({
      model: 'local/echo',
      input: [{ type: 'message', role: 'user', content: 'Count from 1 to 5.' }],
    });
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['response.created', 'response.in_progress']);
    expect(expectResponseResource(events[0].response)).toMatchObject({ status: 'in_progress', completed_at: null, temperature: 1 });
    expect(final).toMatchObject({ status: 'completed', output: [{ type: 'message', content: [{ text: 'Count from 1 to 5.' }] }] });
    expect(typeof final.completed_at).toBe('number');
  });

  it('a failure mid-stream ends with response.failed and an error event, both as the specification requires', async () => {
    fake.setNext(openaiStream(openaiChunks({ content: ['par', 'tial'] }).slice(0, 2), { dropConnection: true }));
    const { events, final } = await stream({ model: 'upstream/gpt-x', input: 'fail please' });
    expect(events.slice(-2).map((e) => e.type)).toEqual(['response.failed', 'error']);
    expect(final).toMatchObject({ status: 'failed', completed_at: null, error: { code: expect.any(String), message: expect.any(String) } });
  });

  it('an Idempotency-Key replay answers the same Response (same id) with Idempotent-Replayed, JSON and streamed', async () => {
    const key = `conf-${Date.now()}`;
    const first = await create({ model: 'local/echo', input: 'once only' }, { 'idempotency-key': key });
    const again = await create({ model: 'local/echo', input: 'once only' }, { 'idempotency-key': key });
    expect(again.res.headers.get('idempotent-replayed')).toBe('true');
    expect(again.response).toEqual(first.response);

    const streamKey = `${key}-s`;
    const one = await stream({ model: 'local/echo', input: 'streamed once' }, { 'idempotency-key': streamKey });
    const two = await stream({ model: 'local/echo', input: 'streamed once' }, { 'idempotency-key': streamKey });
    expect(two.res.headers.get('idempotent-replayed')).toBe('true');
    expect(two.final.id).toBe(one.final.id);
    expect(two.final.output).toEqual(one.final.output);
    const rows = await t.dataSource.query('SELECT count(*)::int AS n FROM responses WHERE project_id = $1 AND id = $2', [
      p.projectId,
      one.final.id.slice(5).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'),
    ]);
    expect(rows[0].n).toBe(1);
  });

  describe.each([
    ['local/echo', 'local/echo'],
    ['a fake OpenAI-compatible upstream', 'upstream/gpt-x'],
  ])('the compliance suite cases on %s', (_name, model) => {
    it.each([
      ['basic', [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }]],
      [
        'system prompt',
        [
          { type: 'message', role: 'system', content: 'You are a pirate.' },
          { type: 'message', role: 'user', content: 'Say hello.' },
        ],
      ],
      [
        'multi-turn',
        [
          { type: 'message', role: 'user', content: 'My name is Alice.' },
          { type: 'message', role: 'assistant', content: 'Hello Alice!' },
          { type: 'message', role: 'user', content: 'What is my name?' },
        ],
      ],
      [
        'image input',
        [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'What do you see?' },
              { type: 'input_image', image_url: pixel },
            ],
          },
        ],
      ],
    ])('%s: completed with output, JSON and streamed', async (_case, input) => {
      const { response } = await create({ model, input });
      expect(response.status).toBe('completed');
      expect(response.output.length).toBeGreaterThan(0);
      const { final } = await stream({ model, input });
      expect(final.status).toBe('completed');
    });
  });

  it("tool calling on local/echo (the suite's requests, tool_choice auto): echo calls the tool the user's text mentions, JSON and streamed", async () => {
    const input = [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }];
    const { response } = await create({ model: 'local/echo', input, tools: [weather] });
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        name: 'get_weather',
        arguments: JSON.stringify({ input: "What's the weather like in San Francisco?" }),
        status: 'completed',
      }),
    ]);
    const { events, final } = await stream({ model: 'local/echo', input, tools: [weather] });
    expect(
      events
        .filter((e) => e.type.startsWith('response.output_item') || e.type.startsWith('response.function_call'))
        .map((e) => [e.type, (e as { item?: { type: string } }).item?.type ?? null]),
    ).toEqual([
      ['response.output_item.added', 'function_call'],
      ...Array.from({ length: 7 }, () => ['response.function_call_arguments.delta', null]),
      ['response.function_call_arguments.done', null],
      ['response.output_item.done', 'function_call'],
    ]);
    expect(final.status).toBe('completed');
  });

  it('tool calling through the upstream: function_call output, and its streamed events', async () => {
    fake.setNext(
      openaiJson(openaiCompletion({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' }] })),
    );
    const { response } = await create({
      model: 'upstream/gpt-x',
      input: [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }],
      tools: [weather],
    });
    expect(response.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_1', name: 'get_weather', status: 'completed' }),
    ]);
    expect(response.tools).toEqual([{ ...weather, strict: null }]);

    fake.setNext(
      openaiStream(openaiChunks({ toolCalls: [{ id: 'call_2', name: 'get_weather', argumentPieces: ['{"location":', '"SF"}'] }] })),
    );
    const { events, final } = await stream({ model: 'upstream/gpt-x', input: 'weather?', tools: [weather] });
    const types = events.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
      ]),
    );
    expect(final.output).toEqual([expect.objectContaining({ type: 'function_call', arguments: '{"location":"SF"}' })]);
  });

  it('max_tool_calls: calls past it are not in the response', async () => {
    const calls = [1, 2, 3].map((n) => ({ id: `call_${n}`, name: 'get_weather', arguments: '{}' }));
    fake.setNext(openaiJson(openaiCompletion({ toolCalls: calls })));
    const { response } = await create({ model: 'upstream/gpt-x', input: 'three cities', tools: [weather], max_tool_calls: 2 });
    expect(response.output.map((item) => (item as { call_id?: string }).call_id)).toEqual(['call_1', 'call_2']);
  });

  it('background: true without store, and top_logprobs > 0 are 400s naming the field', async () => {
    for (const [field, value] of [
      ['background', true],
      ['top_logprobs', 3],
    ] as const) {
      const res = await post({ model: 'local/echo', input: 'x', store: false, [field]: value });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: object }).error).toMatchObject({ param: field, type: 'invalid_request_error' });
    }
  });
});
