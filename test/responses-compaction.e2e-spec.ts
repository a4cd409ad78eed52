import OpenAI from 'openai';

import { anthropicJson, anthropicMessage, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import { FakeUpstream, openaiCompletion, openaiJson } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, openaiClientOnFakeUpstream } from './support/invoke-factories';
import { expectCompactResource, expectResponseResource, itemFieldSchema } from './support/open-responses-schema';
import { TestApp } from './support/test-app';

const CMP_ID = /^cmp_[0-9a-f]{32}_0_0$/;
const decode = (encrypted: string) => Buffer.from(encrypted.replace(/^parley\.compaction\.v1\./, ''), 'base64').toString('utf8');
const hexOf = (uuid: string) => uuid.replace(/-/g, '');
const uuidOfItem = (id: string) => {
  const h = id.split('_')[1];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** POST /v1/responses/compact and `compaction` items (docs/openai-conversations.md, "Compaction"), through the official SDK. */
describe('responses: compaction', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let fake: FakeUpstream;
  const compact = (body: Record<string, unknown>, options?: OpenAI.RequestOptions) => openai.responses.compact(body as never, options);

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, p, openai, fake, close } = await openaiClientOnFakeUpstream());
  });
  afterAll(() => close());

  it('a 50-turn conversation compacted: the next turn sends the summary instead, every item stays listed and names its compaction', async () => {
    const conv = await openai.conversations.create();
    for (let i = 1; i <= 50; i++) {
      const turn = await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: `question ${i}` });
      expect(turn.output_text).toBe(`question ${i}`);
    }
    const rowsBefore = await t.dataSource.query('SELECT id FROM thread_messages WHERE thread_id = $1 ORDER BY seq', [conv.id]);
    expect(rowsBefore).toHaveLength(100);

    fake.setNext(
      openaiJson(openaiCompletion({ content: 'The user asked questions 1 to 50.', usage: { prompt_tokens: 700, completion_tokens: 9 } })),
    );
    const compacted = await compact({ model: 'upstream/gpt-chat', conversation: conv.id });
    expect(compacted).toEqual({
      id: expect.stringMatching(/^resp_[0-9a-f]{32}$/),
      object: 'response.compaction',
      created_at: expect.any(Number),
      output: [
        { id: expect.stringMatching(CMP_ID), type: 'compaction', encrypted_content: expect.stringMatching(/^parley\.compaction\.v1\./) },
      ],
      usage: {
        input_tokens: 700,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 9,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 709,
      },
    });
    expectCompactResource(compacted);
    const [item] = compacted.output as unknown as { id: string; encrypted_content: string }[];
    const summaryText = 'Summary of the earlier part of this conversation:\n\nThe user asked questions 1 to 50.';
    expect(decode(item.encrypted_content)).toBe(summaryText);
    // The summarizer got Parley's instructions and the transcript of all 100 items.
    const summarizing = fake.requests.at(-1)!.body;
    expect(summarizing.model).toBe('gpt-chat');
    expect(summarizing.messages).toHaveLength(2);
    expect(summarizing.messages[0]).toEqual({ role: 'system', content: expect.stringContaining('You compact conversations.') });
    expect(summarizing.messages[1].role).toBe('user');
    expect(summarizing.messages[1].content.split('\n')).toEqual(
      Array.from({ length: 50 }, (_, i) => [`user: question ${i + 1}`, `assistant: question ${i + 1}`]).flat(),
    );

    // The next turn: the fake upstream gets the summary, not the 100 items it covers.
    const next = await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: 'question 51' });
    expectResponseResource(next);
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: summaryText },
      { role: 'user', content: 'question 51' },
    ]);

    // Every item is still listed, in order: the 100 covered ones name the compaction, then it, then the new turn.
    const listed: Record<string, unknown>[] = [];
    for await (const it of openai.conversations.items.list(conv.id, { order: 'asc', limit: 30 }))
      listed.push(it as unknown as Record<string, unknown>);
    expect(listed).toHaveLength(103);
    for (let i = 0; i < 100; i++) {
      const n = Math.floor(i / 2) + 1;
      expect(listed[i]).toMatchObject({
        type: 'message',
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: [{ text: `question ${n}` }],
        compacted_by: item.id,
      });
    }
    expect(listed[100]).toEqual({ id: item.id, type: 'compaction', encrypted_content: item.encrypted_content });
    for (const listedItem of listed) itemFieldSchema.parse(listedItem);
    expect(listed.slice(101).map((x) => [x.role, x.compacted_by])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
    ]);
    expect(await openai.conversations.items.retrieve(item.id, { conversation_id: conv.id })).toEqual(listed[100]);
    expect(await openai.conversations.items.retrieve(listed[0].id as string, { conversation_id: conv.id })).toEqual(listed[0]);

    // The database: rows kept, each covered turn names the compaction's turn, which links its request log.
    const turnId = uuidOfItem(item.id);
    expect(hexOf(turnId)).toBe(compacted.id.replace('resp_', ''));
    const covered = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM thread_messages WHERE thread_id = $1 AND compacted_by = $2 AND deleted_at IS NULL',
      [conv.id, turnId],
    );
    expect(covered[0].n).toBe(100);
    const [turn] = await t.dataSource.query(
      'SELECT seq, content, metadata, request_log_id, compacted_by FROM thread_messages WHERE id = $1',
      [turnId],
    );
    expect(turn).toMatchObject({
      seq: 101,
      content: [{ role: 'system', content: summaryText, parley_compaction: true }],
      compacted_by: null,
    });
    expect(turn.metadata).toEqual({ parley_compaction_prompt: 'built-in', parley_compaction_model: 'upstream/gpt-chat' });
    const [log] = await t.dataSource.query('SELECT url, status FROM request_logs WHERE id = $1', [turn.request_log_id]);
    expect(log).toEqual({ url: '/v1/responses/compact', status: 200 });

    // The spec's /v2 view shows the compaction as its system message, without Parley's marker.
    const v2 = await t.http().get(`/v2/threads/${conv.id}/messages/${turnId}`).set('X-API-Key', p.key).expect(200);
    expect(v2.body.content).toEqual([{ role: 'system', content: summaryText }]);

    // A deployed compaction prompt (RESPONSES_COMPACTION_PROMPT's default `compaction@production`) makes the next one, versioned.
    await deploy(t, p, {
      slug: 'compaction',
      provider: 'upstream',
      model: 'gpt-summarizer',
      template: [{ role: 'system', content: 'Summarize tersely.' }],
    });
    fake.setNext(openaiJson(openaiCompletion({ content: 'Questions 1 to 51.' })));
    const second = await compact({ conversation: { id: conv.id } });
    expectCompactResource(second);
    const secondItem = second.output[0] as unknown as { id: string; encrypted_content: string };
    const sent = fake.requests.at(-1)!.body;
    expect(sent.model).toBe('gpt-summarizer');
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Summarize tersely.' },
      { role: 'user', content: `summary of what came before: ${summaryText}\nuser: question 51\nassistant: question 51` },
    ]);
    const [secondTurn] = await t.dataSource.query('SELECT metadata FROM thread_messages WHERE id = $1', [uuidOfItem(secondItem.id)]);
    expect(secondTurn.metadata).toEqual({
      parley_compaction_prompt: 'compaction@production:1',
      parley_compaction_model: 'upstream/gpt-summarizer',
    });
    await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: 'question 52' });
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: 'Summary of the earlier part of this conversation:\n\nQuestions 1 to 51.' },
      { role: 'user', content: 'question 52' },
    ]);
    const firstItemNow = await openai.conversations.items.retrieve(item.id, { conversation_id: conv.id });
    expect(firstItemNow).toMatchObject({ type: 'compaction', compacted_by: secondItem.id });
    const all: unknown[] = [];
    for await (const it of openai.conversations.items.list(conv.id)) all.push(it);
    expect(all).toHaveLength(106);
  });

  it('stateless: input (and previous_response_id) compacted into one item, which a later response takes as input', async () => {
    const q = await createProject(t);
    const client = new OpenAI({ baseURL: openai.baseURL, apiKey: q.key, maxRetries: 0 });
    await addProviderCredential(t, q, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
    const first = await client.responses.create({ model: 'upstream/gpt-chat', input: 'my name is Ada' });
    fake.setNext(openaiJson(openaiCompletion({ content: 'The user is Ada.' })));
    const compacted = await client.responses.compact({
      model: 'upstream/gpt-chat',
      previous_response_id: first.id,
      input: [{ role: 'user', content: 'remember it' }],
    });
    expect(fake.requests.at(-1)!.body.messages[1]).toEqual({
      role: 'user',
      content: 'user: my name is Ada\nassistant: my name is Ada\nuser: remember it',
    });
    expect(expectCompactResource(compacted).output).toEqual([
      { id: expect.stringMatching(CMP_ID), type: 'compaction', encrypted_content: expect.any(String) },
    ]);

    const answer = await client.responses.create({
      model: 'upstream/gpt-chat',
      input: [...(compacted.output as never[]), { role: 'user', content: 'who am I?' }],
    });
    expectResponseResource(answer);
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: 'Summary of the earlier part of this conversation:\n\nThe user is Ada.' },
      { role: 'user', content: 'who am I?' },
    ]);
    // local/echo summarizes too (its "summary" is the transcript): works with no provider account.
    const local = await client.responses.compact({ model: 'local/echo', input: 'hello there' });
    expect(decode((local.output[0] as unknown as { encrypted_content: string }).encrypted_content)).toBe(
      'Summary of the earlier part of this conversation:\n\nuser: hello there',
    );
  });

  it('Anthropic: summarized by Claude, and the next turn gets the summary in its system prompt, not the covered turns', async () => {
    const claude = await startFakeAnthropicUpstream();
    try {
      const q = await createProject(t);
      const client = new OpenAI({ baseURL: openai.baseURL, apiKey: q.key, maxRetries: 0 });
      await addProviderCredential(t, q, { name: 'claude', type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant' });
      const conv = await client.conversations.create();
      for (const text of ['plan a trip to Rome', 'in May'])
        await client.responses.create({ model: 'claude/claude-x', conversation: conv.id, input: text });
      claude.setNext(anthropicJson(anthropicMessage({ text: 'Trip to Rome in May.' })));
      await client.responses.compact({ model: 'claude/claude-x', conversation: conv.id } as never);
      expect(claude.requests.at(-1)!.body).toMatchObject({
        system: expect.stringContaining('You compact conversations.'),
        messages: [{ role: 'user', content: 'user: plan a trip to Rome\nassistant: plan a trip to Rome\nuser: in May\nassistant: in May' }],
      });
      await client.responses.create({ model: 'claude/claude-x', conversation: conv.id, input: 'hotels?' });
      expect(claude.requests.at(-1)!.body).toMatchObject({
        system: 'Summary of the earlier part of this conversation:\n\nTrip to Rome in May.',
        messages: [{ role: 'user', content: 'hotels?' }],
      });
    } finally {
      await claude.close();
    }
  });

  it("refuses what it cannot do with a 400 naming the field; another project's conversation is not found", async () => {
    const conv = await openai.conversations.create({ items: [{ role: 'user', content: 'hi' }] });
    await expect(compact({ model: 'local/echo', conversation: conv.id, input: 'x' })).rejects.toMatchObject({
      status: 400,
      param: 'input',
    });
    await expect(compact({ model: 'local/echo', input: 'x', verbosity: 'low' })).rejects.toMatchObject({ status: 400 });
    await expect(compact({ model: 'local/echo' })).rejects.toMatchObject({ status: 400, param: 'input' });
    await expect(compact({ model: 'nope/none', input: 'x' })).rejects.toMatchObject({ status: 404, param: 'model' });
    const empty = await openai.conversations.create();
    await expect(compact({ model: 'local/echo', conversation: empty.id })).rejects.toMatchObject({ status: 400, param: 'conversation' });

    const other = await createProject(t);
    const otherClient = new OpenAI({ baseURL: openai.baseURL, apiKey: other.key, maxRetries: 0 });
    await expect(otherClient.responses.compact({ model: 'local/echo', conversation: conv.id } as never)).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    // Without a deployed compaction prompt, `model` is required.
    await expect(otherClient.responses.compact({ input: 'x' } as never)).rejects.toMatchObject({ status: 400, param: 'model' });
    const rows = await t.dataSource.query('SELECT count(*)::int AS n FROM thread_messages WHERE thread_id = $1', [conv.id]);
    expect(rows[0].n).toBe(1);
  });

  it('an Idempotency-Key retry answers the same compaction and appends nothing again', async () => {
    const conv = await openai.conversations.create({
      items: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
      ],
    });
    const key = { headers: { 'Idempotency-Key': `cmp-${conv.id}` } };
    const first = await compact({ model: 'local/echo', conversation: conv.id }, key);
    const again = await compact({ model: 'local/echo', conversation: conv.id }, key);
    expect(again.id).toBe(first.id);
    expect(again.output).toEqual(first.output);
    const rows = await t.dataSource.query('SELECT count(*)::int AS n FROM thread_messages WHERE thread_id = $1', [conv.id]);
    expect(rows[0].n).toBe(2);

    // Deleting the compaction item undoes it for the model: the covered items are sent again.
    await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: 'three' });
    expect(fake.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content)).toEqual([
      expect.stringMatching(/^Summary of the earlier part/),
      'three',
    ]);
    await openai.conversations.items.delete(first.output[0].id as string, { conversation_id: conv.id });
    await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: 'four' });
    expect(fake.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'one',
      'two',
      'three',
      'three',
      'four',
    ]);
    const listed: Record<string, unknown>[] = [];
    for await (const it of openai.conversations.items.list(conv.id, { order: 'asc' }))
      listed.push(it as unknown as Record<string, unknown>);
    expect(listed.map((it) => [it.type, it.compacted_by])).toEqual(Array.from({ length: 6 }, () => ['message', undefined]));
    const covered = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM thread_messages WHERE thread_id = $1 AND compacted_by IS NOT NULL',
      [conv.id],
    );
    expect(covered[0].n).toBe(0);
  });

  it('a compaction covered by a later one, deleted: its items pass to the later one; deleting that on /v2 gives them back to the model', async () => {
    const conv = await openai.conversations.create({ items: [{ role: 'user', content: 'alpha' }] });
    const c1 = await compact({ model: 'upstream/gpt-chat', conversation: conv.id });
    await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: 'beta' });
    const c2 = await compact({ model: 'upstream/gpt-chat', conversation: conv.id });
    const c2Turn = uuidOfItem(c2.output[0].id as string);
    await openai.conversations.items.delete(c1.output[0].id as string, { conversation_id: conv.id });
    const [alpha] = await t.dataSource.query('SELECT compacted_by FROM thread_messages WHERE thread_id = $1 AND seq = 1', [conv.id]);
    expect(alpha.compacted_by).toBe(c2Turn);
    await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: 'gamma' });
    expect(fake.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    await t.http().delete(`/v2/threads/${conv.id}/messages/${c2Turn}`).set('X-API-Key', p.key).expect(200);
    await openai.responses.create({ model: 'upstream/gpt-chat', conversation: conv.id, input: 'delta' });
    expect(fake.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'alpha',
      'beta',
      'beta',
      'gamma',
      'gamma',
      'delta',
    ]);
  });
});
