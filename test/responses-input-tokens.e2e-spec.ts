import OpenAI from 'openai';

import { anthropicJson, FakeUpstream as AnthropicFake, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, listen } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** POST /v1/responses/input_tokens through the official SDK's responses.inputTokens.count. */
describe('responses: input token counts', () => {
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
    await deploy(t, p, {
      slug: 'counted',
      provider: 'upstream',
      model: 'gpt-4o',
      template: [{ role: 'system', content: 'Be {{tone}}.' }],
      variables: { tone: 'kind' },
    });
  });
  afterAll(async () => {
    await t.close();
    await oaFake.close();
    await anFake.close();
  });

  it('local/echo: the count is what the response reports as its input tokens (history and instructions included)', async () => {
    const first = await openai.responses.create({ model: 'local/echo', input: 'one two three' });
    const body = { model: 'local/echo', input: 'four five', instructions: 'Be brief please.', previous_response_id: first.id };
    const count = await openai.responses.inputTokens.count(body);
    expect(count).toEqual({ object: 'response.input_tokens', input_tokens: 11 });
    expect((await openai.responses.create(body)).usage!.input_tokens).toBe(11);
  });

  it("OpenAI models: counted with the model's tokenizer, template included; no upstream call", async () => {
    const before = oaFake.requests.length;
    expect((await openai.responses.inputTokens.count({ model: 'upstream/gpt-4o', input: 'hello there' })).input_tokens).toBe(9);
    // The deployment's template (a system message) counts too.
    const withTemplate = await openai.responses.inputTokens.count({
      prompt: { id: 'counted', variables: { tone: 'calm' } },
      input: 'hello there',
    } as never);
    expect(withTemplate.input_tokens).toBeGreaterThan(9);
    // A model gpt-tokenizer does not know: an estimate (about four characters a token).
    const estimate = await openai.responses.inputTokens.count({ model: 'upstream/llama-3-8b', input: 'x'.repeat(400) });
    expect(estimate.input_tokens).toBeGreaterThanOrEqual(100);
    expect(oaFake.requests.length).toBe(before);
  });

  it('Anthropic: its count endpoint, with the translated request and x-api-key', async () => {
    anFake.setNext(anthropicJson({ input_tokens: 123 }));
    const count = await openai.responses.inputTokens.count({ model: 'claude/claude-count', input: 'How many?', instructions: 'Count.' });
    expect(count.input_tokens).toBe(123);
    const sent = anFake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(sent.headers['x-api-key']).toBe('sk-ant');
    expect(sent.body).toEqual({ model: 'claude-count', system: 'Count.', messages: [{ role: 'user', content: 'How many?' }] });
  });

  it('the create body rules apply: unknown model 404, bad fields 400', async () => {
    await expect(openai.responses.inputTokens.count({ model: 'nope/none', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.responses.inputTokens.count({ model: 'local/echo', input: 'x', temperature: 9 } as never)).rejects.toBeInstanceOf(
      OpenAI.BadRequestError,
    );
  });
});
