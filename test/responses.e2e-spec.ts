import OpenAI from 'openai';

import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { deploy, INVOKE_APP_ENV, invokePath, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** /v1/responses through the official SDK on local/echo (echo answers the last user text, or a tool result). */
describe('responses (OpenAI SDK, local/echo)', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let openai: OpenAI;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await deploy(t, p, { slug: 'helper', kind: 'assistant' });
  });
  afterAll(() => t.close());

  it('create: a Response with output_text, usage and the request echoed; stored, retrievable, deletable', async () => {
    const response = await openai.responses.create({
      model: 'local/echo',
      input: 'hello there',
      instructions: 'Be brief.',
      metadata: { ticket: 'T-1' },
      temperature: 0.5,
    });
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'local/echo',
      output_text: 'hello there',
      instructions: 'Be brief.',
      metadata: { ticket: 'T-1' },
      temperature: 0.5,
      error: null,
      incomplete_details: null,
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'hello there', annotations: [] }],
        },
      ],
    });
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: 2, total_tokens: expect.any(Number) });
    expect(await openai.responses.retrieve(response.id)).toEqual(
      JSON.parse(JSON.stringify({ ...response, output_text: response.output_text })),
    );
    const items = await openai.responses.inputItems.list(response.id);
    expect(items.data).toMatchObject([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] }]);
    const [log] = (await requestLogRows(t, p.projectId)).slice(-1);
    expect(log).toMatchObject({ prompt_slug: 'local/echo', metadata: { ticket: 'T-1' } });

    await openai.responses.delete(response.id); // the SDK types the answer as void; Parley answers {id, object, deleted}
    await expect(openai.responses.retrieve(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.responses.create({ model: 'local/echo', input: 'x', previous_response_id: response.id })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });

  it('store: false keeps nothing retrievable, but the call is logged', async () => {
    const before = (await requestLogRows(t, p.projectId)).length;
    const response = await openai.responses.create({ model: 'local/echo', input: 'ephemeral', store: false });
    expect(response.output_text).toBe('ephemeral');
    await expect(openai.responses.retrieve(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await requestLogRows(t, p.projectId)).length).toBe(before + 1);
  });

  it('stream: true yields typed events with sequence numbers; responses.stream() + finalResponse()', async () => {
    const stream = await openai.responses.create({ model: 'local/echo', input: 'one two three', stream: true });
    const types: string[] = [];
    const numbers: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
    }
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(numbers).toEqual(numbers.map((_, i) => i));

    const helper = openai.responses.stream({ model: 'local/echo', input: 'streamed helper' });
    let deltas = '';
    helper.on('response.output_text.delta', (e) => (deltas += e.delta));
    const final = await helper.finalResponse();
    expect(final.output_text).toBe('streamed helper');
    expect(deltas).toBe('streamed helper');
    expect(final.usage).toMatchObject({ output_tokens: 2 });
    expect((await openai.responses.retrieve(final.id)).output_text).toBe('streamed helper');
  });

  it('previous_response_id chains the history; conversation and previous_response_id together are a 400', async () => {
    const first = await openai.responses.create({ model: 'local/echo', input: 'first' });
    const second = await openai.responses.create({
      model: 'local/echo',
      input: [{ role: 'user', content: 'second' }],
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    // local/echo counts the words of every message it was sent: the chain (first, its answer) came along.
    expect(second.usage!.input_tokens).toBe(3);
    const conv = await openai.conversations.create();
    await expect(
      openai.responses.create({ model: 'local/echo', input: 'x', previous_response_id: first.id, conversation: conv.id }),
    ).rejects.toMatchObject({ status: 400, param: 'previous_response_id' });
    await expect(openai.responses.create({ model: 'nope/x', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.responses.create({ model: 'local/echo', input: 'x', bogus: 1 } as never)).rejects.toMatchObject({ status: 400 });
  });

  it('conversation: input and output appended to the thread; /v2 and /v1 show one history, continued from both sides', async () => {
    const conv = await openai.conversations.create({ items: [{ role: 'user', content: 'from v1 create' }] });
    const r1 = await openai.responses.create({
      model: 'helper',
      input: 'via responses',
      conversation: conv.id,
      instructions: 'not stored',
    });
    expect(r1.conversation).toEqual({ id: conv.id });
    await api.post(invokePath(p, 'helper'), { threadId: conv.id, messages: [{ role: 'user', content: 'via invoke' }] }).expect(200);
    const r2 = await openai.responses.create({ model: 'local/echo', input: 'again', conversation: { id: conv.id }, stream: true });
    for await (const _ of r2) void _;
    const v2 = await api.get(`/v2/threads/${conv.id}/messages`).expect(200);
    expect(
      v2.body.data.map((m: { content: { role: string; content: string }[] }) => m.content.map((c) => `${c.role}:${c.content}`)),
    ).toEqual([
      ['user:from v1 create'],
      ['user:via responses'],
      ['assistant:via responses'],
      ['user:via invoke'],
      ['assistant:via invoke'],
      ['user:again'],
      ['assistant:again'],
    ]);
    const items: string[] = [];
    for await (const item of openai.conversations.items.list(conv.id, { order: 'asc' }))
      items.push(((item as OpenAI.Conversations.Message).content[0] as { text: string }).text);
    expect(items).toEqual(['from v1 create', 'via responses', 'via responses', 'via invoke', 'via invoke', 'again', 'again']);
  });

  it('a function tool round trip: function_call out, function_call_output in', async () => {
    const tools = [
      {
        type: 'function' as const,
        name: 'lookup',
        description: 'Looks up',
        parameters: { type: 'object', properties: { input: { type: 'string' } } },
        strict: false,
      },
    ];
    const call = await openai.responses.create({
      model: 'local/echo',
      input: 'find tea',
      tools,
      tool_choice: { type: 'function', name: 'lookup' },
    });
    const fc = call.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(fc).toMatchObject({ type: 'function_call', name: 'lookup', arguments: JSON.stringify({ input: 'find tea' }) });
    expect(call.tools).toMatchObject([{ type: 'function', name: 'lookup' }]);
    const answer = await openai.responses.create({
      model: 'local/echo',
      previous_response_id: call.id,
      tools,
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: 'green tea, shelf 3' }],
    });
    expect(answer.output_text).toBe('green tea, shelf 3');
  });

  it('prompt: a deployed prompt selected with prompt.id, its variables filled', async () => {
    await deploy(t, p, { slug: 'greeter', template: [{ role: 'user', content: 'Hello {{name}}' }] });
    const response = await openai.responses.create({ prompt: { id: 'greeter@production', variables: { name: 'Ada' } } });
    expect(response.output_text).toBe('Hello Ada');
    await expect(openai.responses.create({ prompt: { id: 'missing' } })).rejects.toMatchObject({ status: 404, param: 'prompt' });
  });

  it('2 × 32 concurrent responses.create on one conversation leave 64 contiguous input/output pairs', async () => {
    const conv = await openai.conversations.create();
    for (let round = 0; round < 2; round++) {
      await Promise.all(
        Array.from({ length: 32 }, (_, i) =>
          openai.responses.create({ model: 'local/echo', input: `r${round}-${i}`, conversation: conv.id }),
        ),
      );
    }
    const rows: { seq: number; content: { role: string; content: string }[] }[] = await t.dataSource.query(
      'SELECT seq, content FROM thread_messages WHERE thread_id = $1 ORDER BY seq',
      [conv.id],
    );
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 128 }, (_, i) => i + 1));
    const seen = new Set<string>();
    for (let i = 0; i < rows.length; i += 2) {
      const [input, output] = [rows[i].content[0], rows[i + 1].content[0]];
      expect(input.role).toBe('user');
      expect(output).toEqual({ role: 'assistant', content: input.content });
      seen.add(input.content);
    }
    expect(seen.size).toBe(64);
  });
});
