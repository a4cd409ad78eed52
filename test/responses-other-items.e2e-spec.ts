import OpenAI from 'openai';

import { FakeUpstream, openaiCompletion, openaiJson } from './fakes/fake-openai-upstream';
import { TestProject } from './support/factories';
import { openaiClientOnFakeUpstream } from './support/invoke-factories';
import { expectResponseResource } from './support/open-responses-schema';
import { TestApp } from './support/test-app';

const ITM_ID = /^itm_[0-9a-f]{32}_\d+_0$/;

/** Item types Parley does not interpret: stored and returned unchanged, never sent to a provider; `include` values. */
describe('responses and conversations: items Parley does not interpret, include', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let fake: FakeUpstream;

  const reasoning = {
    type: 'reasoning',
    id: 'rs_given',
    summary: [{ type: 'summary_text', text: 'thought about it' }],
    encrypted_content: 'opaque-blob',
  };
  const reference = { type: 'item_reference', id: 'msg_elsewhere' };
  const search = {
    type: 'web_search_call',
    id: 'ws_1',
    status: 'completed',
    action: { type: 'search', query: 'tea', sources: [{ type: 'url', url: 'https://example.com' }] },
  };
  const foreignCompaction = { type: 'compaction', id: 'cmp_openai', encrypted_content: 'gAAAAABo-not-parleys' };
  const withoutId = ({ id: _id, ...rest }: Record<string, unknown>) => rest;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, p, openai, fake, close } = await openaiClientOnFakeUpstream());
  });
  afterAll(() => close());

  it("conversation items: stored and returned unchanged (Parley's id), listed, retrievable, deletable; not in the /v2 view", async () => {
    const conv = await openai.conversations.create({ items: [{ role: 'user', content: 'hello' }, reasoning as never, reference as never] });
    const created = await openai.conversations.items.create(conv.id, { items: [search as never, foreignCompaction as never] });
    expect(created.data).toEqual([
      { ...withoutId(search), id: expect.stringMatching(ITM_ID) },
      { ...withoutId(foreignCompaction), id: expect.stringMatching(ITM_ID) },
    ]);
    const listed: Record<string, unknown>[] = [];
    for await (const item of openai.conversations.items.list(conv.id, { order: 'asc' }))
      listed.push(item as unknown as Record<string, unknown>);
    expect(listed.map(withoutId)).toEqual([
      { type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'hello' }] },
      withoutId(reasoning),
      withoutId(reference),
      withoutId(search),
      withoutId(foreignCompaction),
    ]);
    expect(await openai.conversations.items.retrieve(listed[1].id as string, { conversation_id: conv.id })).toEqual(listed[1]);

    const rows = await t.dataSource.query('SELECT id, content FROM thread_messages WHERE thread_id = $1 ORDER BY seq', [conv.id]);
    expect(rows[0].content).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'parley_item', item: withoutId(reasoning) },
      { role: 'parley_item', item: withoutId(reference) },
    ]);
    const v2 = await t.http().get(`/v2/threads/${conv.id}/messages/${rows[0].id}`).set('X-API-Key', p.key).expect(200);
    expect(v2.body.content).toEqual([{ role: 'user', content: 'hello' }]);

    // Never sent to the provider: the next turn's history holds only what Parley interprets.
    fake.setNext(openaiJson(openaiCompletion({ content: 'hi' })));
    const reply = await openai.responses.create({ model: 'upstream/gpt-x', conversation: conv.id, input: 'next' });
    expectResponseResource(reply);
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'user', content: 'next' },
    ]);

    await openai.conversations.items.delete(listed[2].id as string, { conversation_id: conv.id });
    const after: unknown[] = [];
    for await (const item of openai.conversations.items.list(conv.id, { order: 'asc' })) after.push(item);
    expect(after).toHaveLength(listed.length + 2 - 1);
  });

  it('responses input: an earlier output (reasoning included) sent back as input works; the other items are stored, listed as input items, not sent', async () => {
    fake.setNext(
      openaiJson({
        ...openaiCompletion({ content: 'Paris.' }),
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Paris.', reasoning_content: 'France → Paris' },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
      }),
    );
    const first = await openai.responses.create({ model: 'upstream/gpt-x', input: 'Capital of France?', reasoning: { effort: 'low' } });
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    fake.setNext(openaiJson(openaiCompletion({ content: 'Berlin.' })));
    const second = await openai.responses.create({
      model: 'upstream/gpt-x',
      input: [
        { role: 'user', content: 'Capital of France?' },
        ...(first.output as never[]),
        search as never,
        { role: 'user', content: 'And Germany?' },
      ],
      include: [
        'reasoning.encrypted_content',
        'message.output_text.logprobs',
        'web_search_call.action.sources',
        'message.input_image.image_url',
        'computer_call_output.output.image_url',
        'code_interpreter_call.outputs',
        'file_search_call.results',
        'web_search_call.results',
      ],
    });
    expectResponseResource(second);
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'Capital of France?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Paris.' }] },
      { role: 'user', content: 'And Germany?' },
    ]);
    const items = await openai.responses.inputItems.list(second.id, { order: 'asc' });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'reasoning', 'message', 'web_search_call', 'message']);
    expect(withoutId(items.data[1] as never)).toEqual(withoutId(first.output[0] as never));
    expect(withoutId(items.data[3] as never)).toEqual(withoutId(search));
  });

  it('bounds and refusals: a type that is no type name, too deep, too large, an unknown include value', async () => {
    const conv = await openai.conversations.create();
    const bad = (items: unknown[]) => openai.conversations.items.create(conv.id, { items: items as never });
    await expect(bad([{ type: 'Web Search!' }])).rejects.toMatchObject({ status: 400, param: 'items[0].type' });
    await expect(bad([{ type: 42 }])).rejects.toMatchObject({ status: 400, param: 'items[0].type' });
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 16; i++) deep = { inner: deep };
    await expect(
      bad([
        { role: 'user', content: 'ok' },
        { type: 'custom_thing', deep },
      ]),
    ).rejects.toMatchObject({ status: 400, param: 'items[1]' });
    await expect(bad([{ type: 'custom_thing', data: 'x'.repeat(262_145) }])).rejects.toMatchObject({ status: 400, param: 'items[0]' });
    await expect(bad([{ type: 'compaction' }])).rejects.toMatchObject({ status: 400, param: 'items[0].encrypted_content' });
    const rows = await t.dataSource.query('SELECT count(*)::int AS n FROM thread_messages WHERE thread_id = $1', [conv.id]);
    expect(rows[0].n).toBe(0);
    // Within the bounds (16 levels, the item itself included): stored.
    const fits = (deep.inner as Record<string, unknown>).inner;
    await openai.conversations.items.create(conv.id, { items: [{ type: 'custom_thing', deep: fits } as never] });

    await expect(openai.responses.create({ model: 'local/echo', input: 'x', include: ['everything' as never] })).rejects.toMatchObject({
      status: 400,
      param: 'include[0]',
    });
  });
});
