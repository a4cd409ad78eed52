import OpenAI from 'openai';

import {
  anthropicJson,
  anthropicMessage,
  anthropicStream,
  FakeUpstream as AnthropicFake,
  startFakeAnthropicUpstream,
} from './fakes/fake-anthropic-upstream';
import {
  FakeUpstream,
  openaiChunks,
  openaiCompletion,
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, listen } from './support/invoke-factories';
import { expectResponseResource, expectStreamingEvents } from './support/open-responses-schema';
import { createTestApp, TestApp } from './support/test-app';

/** `reasoning` on /v1/responses (and `reasoning_effort` on chat completions) through the fake upstreams, with the official SDK. */
describe('responses: reasoning', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let oaFake: FakeUpstream;
  let anFake: AnthropicFake;

  beforeAll(async () => {
    oaFake = await startFakeOpenAIUpstream();
    anFake = await startFakeAnthropicUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: oaFake.url, apiKey: 'sk-up' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anFake.url, apiKey: 'sk-ant' });
  });
  afterAll(async () => {
    await t.close();
    await oaFake.close();
    await anFake.close();
  });

  /** Every event of an SDK stream, checked against the specification, and the final Response. */
  async function streamed(params: OpenAI.Responses.ResponseCreateParamsStreaming) {
    const events: Array<{ type: string }> = [];
    for await (const event of await openai.responses.create(params)) events.push(event);
    expectStreamingEvents(events);
    const last = events.at(-1) as { type: string; response: OpenAI.Responses.Response };
    return { types: events.map((e) => e.type), events, final: last.response };
  }

  it('OpenAI-compatible: reasoning_effort sent; reasoning_content becomes a reasoning item; reasoning tokens in usage', async () => {
    const completion = openaiCompletion({ content: 'Paris.' }) as ReturnType<typeof openaiCompletion> & { usage: Record<string, unknown> };
    (completion.choices[0].message as Record<string, unknown>).reasoning_content = 'The capital of France is Paris.';
    completion.usage.completion_tokens_details = { reasoning_tokens: 7 };
    oaFake.setNext(openaiJson(completion));
    const response = await openai.responses.create({
      model: 'upstream/o-fake',
      input: 'Capital of France?',
      reasoning: { effort: 'high', summary: 'auto' },
    });
    expectResponseResource(response);
    expect(oaFake.requests.at(-1)!.body.reasoning_effort).toBe('high');
    expect(response.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'The capital of France is Paris.' }],
    });
    expect(response.output_text).toBe('Paris.');
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(7);
    // Reasoning is not sent back to an OpenAI-compatible server on the next turn.
    await openai.responses.create({ model: 'upstream/o-fake', input: 'And Italy?', previous_response_id: response.id });
    expect(oaFake.requests.at(-1)!.body.messages[1]).toEqual({ role: 'assistant', content: 'Paris.' });
  });

  it('OpenAI-compatible streamed (a server naming it `reasoning`): reasoning summary events, then the text', async () => {
    const chunks = openaiChunks({ content: ['Pa', 'ris.'] }) as Array<{ choices: Array<{ delta: Record<string, unknown> }> }>;
    const thinking = ['Thinking ', 'about France.'].map((piece) => ({
      ...chunks[0],
      choices: [{ index: 0, delta: { reasoning: piece }, finish_reason: null }],
    }));
    oaFake.setNext(openaiStream([chunks[0], ...thinking, ...chunks.slice(1)]));
    const { types, final } = await streamed({ model: 'upstream/o-fake', input: 'Capital?', reasoning: { effort: 'low' }, stream: true });
    expect(types).toEqual(
      expect.arrayContaining([
        'response.reasoning_summary_part.added',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.done',
        'response.reasoning_summary_part.done',
      ]),
    );
    expect(types.indexOf('response.reasoning_summary_text.done')).toBeLessThan(types.indexOf('response.output_text.delta'));
    expect(final.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking about France.' }] });
    expect(final.output_text ?? (final.output[1] as { content: Array<{ text: string }> }).content[0].text).toBe('Paris.');
    const stored = await openai.responses.retrieve(final.id);
    expect(stored.output[0]).toMatchObject({ type: 'reasoning' });
  });

  it('Anthropic: extended thinking with the budget of the effort; thinking blocks become reasoning items; sent back with their signature in a conversation', async () => {
    const message = anthropicMessage({ text: 'Paris.' });
    message.content.unshift({ type: 'thinking', thinking: 'France → Paris.', signature: 'sig-abc' });
    anFake.setNext(anthropicJson(message));
    const conversation = await openai.conversations.create();
    const response = await openai.responses.create({
      model: 'claude/claude-think',
      input: 'Capital of France?',
      reasoning: { effort: 'medium' },
      conversation: conversation.id,
      include: ['reasoning.encrypted_content'],
    });
    expectResponseResource(response);
    expect(anFake.requests.at(-1)!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 8192 }, max_tokens: 8192 + 1024 });
    expect(response.output[0]).toMatchObject({ type: 'reasoning', summary: [{ text: 'France → Paris.' }], encrypted_content: 'sig-abc' });

    await openai.responses.create({
      model: 'claude/claude-think',
      input: 'And Italy?',
      reasoning: { effort: 'medium' },
      conversation: conversation.id,
    });
    expect(anFake.requests.at(-1)!.body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'France → Paris.', signature: 'sig-abc' },
        { type: 'text', text: 'Paris.' },
      ],
    });
    // The spec's /v2 view of the thread shows no reasoning fields.
    const v2 = await t.http().get(`/v2/threads/${conversation.id}/messages`).set('X-API-Key', p.key).expect(200);
    expect(JSON.stringify(v2.body)).not.toMatch(/reasoning/);
  });

  it('Anthropic streamed: thinking deltas are reasoning summary events', async () => {
    const head = anthropicMessage({ text: '' });
    anFake.setNext(
      anthropicStream([
        { event: 'message_start', data: { type: 'message_start', message: { ...head, content: [], stop_reason: null } } },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm, ' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Paris.' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-s' } },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '', citations: null } },
        },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Paris.' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
        {
          event: 'message_delta',
          data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]),
    );
    const { types, final } = await streamed({
      model: 'claude/claude-think',
      input: 'Capital?',
      reasoning: { effort: 'low', summary: 'auto' },
      stream: true,
    });
    expect(anFake.requests.at(-1)!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(types.filter((type) => type === 'response.reasoning_summary_text.delta')).toHaveLength(2);
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(final.output[0]).toMatchObject({ summary: [{ text: 'Hmm, Paris.' }] });
    expect(final.output[0]).not.toHaveProperty('encrypted_content');
  });

  it('Anthropic: a max_output_tokens too small for extended thinking is a 400 before any call', async () => {
    const before = anFake.requests.length;
    await expect(
      openai.responses.create({ model: 'claude/claude-think', input: 'x', reasoning: { effort: 'high' }, max_output_tokens: 500 }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    expect(anFake.requests.length).toBe(before);
  });

  it('chat completions: reasoning_effort is passed to an OpenAI-compatible upstream', async () => {
    await openai.chat.completions.create({
      model: 'upstream/o-fake',
      messages: [{ role: 'user', content: 'hi' }],
      reasoning_effort: 'low',
    });
    expect(oaFake.requests.at(-1)!.body.reasoning_effort).toBe('low');
  });
});
