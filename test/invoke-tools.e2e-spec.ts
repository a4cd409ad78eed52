import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

import {
  anthropicEvents,
  anthropicJson,
  anthropicMessage,
  anthropicStream,
  FakeUpstream as FakeAnthropic,
  startFakeAnthropicUpstream,
} from './fakes/fake-anthropic-upstream';
import { FakeUpstream, openaiCompletion, openaiJson, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, createThread, TestProject } from './support/factories';
import { Client, client } from './support/http';
import {
  addProviderCredential,
  deploy,
  expectCompletion,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  openaiClient,
  threadMessageRows,
} from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const LOOKUP = {
  type: 'function',
  function: { name: 'lookup', description: 'find a record', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
};
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

/** A tool-call round trip on each provider: the call is stored, the tool result continues the thread. */
describe('invoke: tool calls on local, openai and anthropic', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let baseUrl: string;
  let openai: FakeUpstream;
  let anthropic: FakeAnthropic;

  const user = (content: string) => ({ role: 'user', content });
  const system = { role: 'system', content: 'You are terse.' };

  beforeAll(async () => {
    openai = await startFakeOpenAIUpstream();
    anthropic = await startFakeAnthropicUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'oai', type: 'openai', baseUrl: openai.url, apiKey: 'sk-o' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant' });
    await deploy(t, p, { slug: 'local-tools', kind: 'assistant', tools: [LOOKUP] });
    await deploy(t, p, { slug: 'oai-tools', kind: 'assistant', provider: 'oai', model: 'gpt-t', tools: [LOOKUP] });
    await deploy(t, p, { slug: 'claude-tools', kind: 'assistant', provider: 'claude', model: 'claude-t', tools: [LOOKUP] });
  });
  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  it('local: a named tool_choice answers with a call of that function; the tool result continues the thread', async () => {
    const first = await api
      .post(invokePath(p, 'local-tools'), {
        messages: [user('find the fox')],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      })
      .expect(200);
    const threadId = first.headers['x-parley-thread-id'];
    const toolCall = first.body.choices[0].message.tool_calls[0];
    expect(toolCall).toEqual(call(expect.stringMatching(/^call_/), 'lookup', '{"input":"find the fox"}'));
    expectCompletion(first.body, 'echo', { content: null, tool_calls: [toolCall] }, 'tool_calls');

    const second = await api
      .post(invokePath(p, 'local-tools'), { threadId, messages: [{ role: 'tool', tool_call_id: toolCall.id, content: 'fox: in the den' }] })
      .expect(200);
    expectCompletion(second.body, 'echo', { content: 'fox: in the den' });
    const rows = await threadMessageRows(t, p.projectId, threadId);
    expect(rows.map((r) => r.content)).toEqual([
      [user('find the fox')],
      [{ role: 'assistant', content: null, tool_calls: [toolCall] }],
      [{ role: 'tool', tool_call_id: toolCall.id, content: 'fox: in the den' }],
      [{ role: 'assistant', content: 'fox: in the den' }],
    ]);
  });

  it('openai: the tool call is stored, and the upstream gets the history with the assistant tool_calls and the tool result', async () => {
    openai.setNext(
      openaiJson(
        openaiCompletion({
          toolCalls: [call('call_a', 'lookup', '{"q":"fox"}'), call('call_b', 'lookup', '{"q":"hen"}')].map((c) => ({
            id: c.id,
            name: c.function.name,
            arguments: c.function.arguments,
          })),
        }),
      ),
    );
    const first = await api.post(invokePath(p, 'oai-tools'), { messages: [user('find both')], tool_choice: 'required' }).expect(200);
    const threadId = first.headers['x-parley-thread-id'];
    const calls = [call('call_a', 'lookup', '{"q":"fox"}'), call('call_b', 'lookup', '{"q":"hen"}')];
    expectCompletion(first.body, 'gpt-fake', { content: null, tool_calls: calls }, 'tool_calls');
    expect(openai.requests[openai.requests.length - 1].body).toMatchObject({ tools: [LOOKUP], tool_choice: 'required' });

    openai.setNext(openaiJson(openaiCompletion({ content: 'Both found.' })));
    const results = [
      { role: 'tool', tool_call_id: 'call_a', content: 'fox found' },
      { role: 'tool', tool_call_id: 'call_b', content: 'hen found' },
    ];
    await api.post(invokePath(p, 'oai-tools'), { threadId, messages: results }).expect(200);
    expect(openai.requests[openai.requests.length - 1].body.messages).toEqual([
      system,
      user('find both'),
      { role: 'assistant', content: null, tool_calls: calls },
      ...results,
    ]);
    const rows = await threadMessageRows(t, p.projectId, threadId);
    expect(rows.map((r) => r.content)).toEqual([
      [user('find both')],
      [{ role: 'assistant', content: null, tool_calls: calls }],
      results,
      [{ role: 'assistant', content: 'Both found.' }],
    ]);
  });

  it('openai streaming: tool-call deltas reach the client, which assembles what Parley stored', async () => {
    const thread = await createThread(t, p);
    const head = { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-t' };
    const chunk = (delta: object, finish: string | null = null) => ({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] });
    // Like some OpenAI-compatible servers, this one repeats id, type and name in every delta of a call.
    const piece = (index: number, id: string, args: string) =>
      chunk({ tool_calls: [{ index, id, type: 'function', function: { name: 'lookup', arguments: args } }] });
    openai.setNext(
      openaiStream([
        chunk({ role: 'assistant', content: null }),
        piece(0, 'call_s1', ''),
        piece(0, 'call_s1', '{"q"'),
        piece(0, 'call_s1', ':"fox"}'),
        piece(1, 'call_s2', '{"q":'),
        piece(1, 'call_s2', '"owl"}'),
        chunk({}, 'tool_calls'),
      ]),
    );
    // The official SDK's streaming helper: it parses the SSE events and assembles the deltas itself.
    const sdk = openaiClient(baseUrl, p, 'oai-tools');
    const runner = sdk.chat.completions.stream({
      model: 'gpt-t',
      messages: [{ role: 'user', content: 'stream the calls' }],
      threadId: thread.id,
    } as never);
    const deltas: unknown[] = [];
    runner.on('chunk', (c: ChatCompletionChunk) => c.choices[0]?.delta.tool_calls && deltas.push(c));
    const final = await runner.finalChatCompletion();
    expect(deltas).toHaveLength(5);
    const calls = [call('call_s1', 'lookup', '{"q":"fox"}'), call('call_s2', 'lookup', '{"q":"owl"}')];
    expect(final.choices[0]).toMatchObject({ message: { content: null, tool_calls: calls }, finish_reason: 'tool_calls' });
    const rows = await threadMessageRows(t, p.projectId, thread.id);
    expect(rows.map((r) => r.content)).toEqual([[user('stream the calls')], [{ role: 'assistant', content: null, tool_calls: calls }]]);

    openai.setNext(openaiJson(openaiCompletion({ content: 'done' })));
    const results = [
      { role: 'tool', tool_call_id: 'call_s1', content: 'a' },
      { role: 'tool', tool_call_id: 'call_s2', content: 'b' },
    ];
    await api.post(invokePath(p, 'oai-tools'), { threadId: thread.id, messages: results }).expect(200);
    expect(openai.requests[openai.requests.length - 1].body.messages).toEqual([
      system,
      user('stream the calls'),
      { role: 'assistant', content: null, tool_calls: calls },
      ...results,
    ]);
  });

  it('sends a thread message with null content (Create Thread Message allows it) as empty text to every provider', async () => {
    for (const [slug, fake] of [
      ['oai-tools', openai],
      ['claude-tools', anthropic],
    ] as const) {
      const thread = await createThread(t, p);
      await api.post(`/v2/threads/${thread.id}/messages`, { message: { content: null } }).expect(200);
      const res = await api.post(invokePath(p, slug), { threadId: thread.id, messages: [user('after the empty one')] });
      expect([slug, res.status]).toEqual([slug, 200]);
      const sent = fake.requests[fake.requests.length - 1].body.messages;
      expect(sent[sent.length - 1]).toEqual(user('after the empty one'));
      expect(JSON.stringify(sent)).not.toContain('null');
    }
  });

  it('anthropic: tool_use becomes tool_calls, and the tool result goes back as a tool_result block', async () => {
    anthropic.setNext(anthropicJson(anthropicMessage({ toolUses: [{ id: 'toolu_1', name: 'lookup', input: { q: 'fox' } }] })));
    const first = await api
      .post(invokePath(p, 'claude-tools'), {
        messages: [user('find the fox')],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      })
      .expect(200);
    const threadId = first.headers['x-parley-thread-id'];
    const calls = [call('toolu_1', 'lookup', '{"q":"fox"}')];
    expectCompletion(first.body, 'claude-fake', { content: null, tool_calls: calls }, 'tool_calls');
    expect(anthropic.requests[anthropic.requests.length - 1].body).toMatchObject({
      model: 'claude-t',
      system: 'You are terse.',
      messages: [user('find the fox')],
      tools: [{ name: 'lookup', description: 'find a record', input_schema: LOOKUP.function.parameters }],
      tool_choice: { type: 'tool', name: 'lookup' },
    });

    anthropic.setNext(anthropicJson(anthropicMessage({ text: 'The fox is in the den.' })));
    const second = await api
      .post(invokePath(p, 'claude-tools'), { threadId, messages: [{ role: 'tool', tool_call_id: 'toolu_1', content: 'den' }] })
      .expect(200);
    expectCompletion(second.body, 'claude-fake', { content: 'The fox is in the den.' });
    expect(anthropic.requests[anthropic.requests.length - 1].body.messages).toEqual([
      user('find the fox'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'fox' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'den' }] },
    ]);
    const rows = await threadMessageRows(t, p.projectId, threadId);
    expect(rows.map((r) => r.content)).toEqual([
      [user('find the fox')],
      [{ role: 'assistant', content: null, tool_calls: calls }],
      [{ role: 'tool', tool_call_id: 'toolu_1', content: 'den' }],
      [{ role: 'assistant', content: 'The fox is in the den.' }],
    ]);
  });

  it('anthropic streaming: text and tool_use events arrive as chunks and are stored as one reply', async () => {
    const thread = await createThread(t, p);
    anthropic.setNext(
      anthropicStream(
        anthropicEvents({ text: ['Let me ', 'check.'], toolUses: [{ id: 'toolu_s', name: 'lookup', jsonPieces: ['{"q":', '"cat"}'] }] }),
      ),
    );
    const sdk = openaiClient(baseUrl, p, 'claude-tools');
    const final = await sdk.chat.completions
      .stream({ model: 'claude-t', messages: [{ role: 'user', content: 'cat?' }], threadId: thread.id } as never)
      .finalChatCompletion();
    const reply = { role: 'assistant', content: 'Let me check.', tool_calls: [call('toolu_s', 'lookup', '{"q":"cat"}')] };
    expect(final.choices[0]).toMatchObject({ message: reply, finish_reason: 'tool_calls' });
    expect(anthropic.requests[anthropic.requests.length - 1].body).toMatchObject({ stream: true, tools: [{ name: 'lookup' }] });
    const rows = await threadMessageRows(t, p.projectId, thread.id);
    expect(rows.map((r) => r.content)).toEqual([[user('cat?')], [reply]]);
  });
});
