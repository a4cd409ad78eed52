import OpenAI from 'openai';

import { FakeUpstream, openaiCompletion, openaiJson } from './fakes/fake-openai-upstream';
import { TestProject } from './support/factories';
import { openaiClientOnFakeUpstream, requestLogRows, sleep } from './support/invoke-factories';
import { TestApp } from './support/test-app';

/** POST /v1/responses/compact with nothing to compact (issue 40, item 6): a 400 before any provider call. */
describe('responses: compacting empty input', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let fake: FakeUpstream;
  const compact = (body: Record<string, unknown>) => openai.responses.compact(body as never);

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, p, openai, fake, close } = await openaiClientOnFakeUpstream());
  });
  afterAll(() => close());

  const errorOf = async (body: Record<string, unknown>) => {
    const err = await compact(body).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = err as InstanceType<typeof OpenAI.BadRequestError>;
    return { status: bad.status, param: bad.param, error: bad.error };
  };

  it('input "", whitespace, an empty message or empty content parts: the same 400 as input [], no upstream call, no log', async () => {
    const reference = await errorOf({ model: 'upstream/gpt-chat', input: [] });
    expect(reference).toEqual({
      status: 400,
      param: 'input',
      error: { message: expect.any(String), type: 'invalid_request_error', param: 'input', code: null },
    });
    const empties: unknown[] = [
      '',
      '   ',
      ' \n\t ',
      [{ role: 'user', content: '' }],
      [{ type: 'message', role: 'user', content: [] }],
      [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: '  ' }] }],
      [
        { role: 'user', content: '' },
        { role: 'assistant', content: ' ' },
      ],
    ];
    for (const input of empties) {
      expect({ input, ...(await errorOf({ model: 'upstream/gpt-chat', input })) }).toEqual({ input, ...reference });
      // With instructions only, there is still nothing to compact.
      expect(await errorOf({ model: 'upstream/gpt-chat', input, instructions: 'Be brief.' })).toEqual(reference);
    }
    expect(fake.requests).toHaveLength(0);

    // A conversation whose items hold no text: nothing to compact either.
    const blank = await openai.conversations.create({ items: [{ type: 'message', role: 'user', content: ' ' }] });
    expect(await errorOf({ model: 'upstream/gpt-chat', conversation: blank.id })).toEqual({
      status: 400,
      param: 'conversation',
      error: { message: 'The conversation has no items to compact.', type: 'invalid_request_error', param: 'conversation', code: null },
    });
    expect(fake.requests).toHaveLength(0);

    // A compaction of real input is called and logged; it is the project's only log row.
    fake.setNext(openaiJson(openaiCompletion({ content: 'The user said hello.' })));
    const done = await compact({
      model: 'upstream/gpt-chat',
      input: [
        { role: 'user', content: '' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(done.object).toBe('response.compaction');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].body.messages[1]).toEqual({ role: 'user', content: 'user: hello' });
    let rows = await requestLogRows(t, p.projectId);
    for (let i = 0; rows.length === 0 && i < 50; i++) {
      await sleep(100);
      rows = await requestLogRows(t, p.projectId);
    }
    await sleep(300);
    rows = await requestLogRows(t, p.projectId);
    expect(rows.map((row) => [row.url, row.status])).toEqual([['/v1/responses/compact', 200]]);
  });
});
