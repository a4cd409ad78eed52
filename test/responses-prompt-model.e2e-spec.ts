import OpenAI from 'openai';

import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * /v1/responses with `model` beside `prompt`, which OpenAI accepts: the request's model instead of
 * the prompt's (docs/openai-conversations.md, "Responses"). `<provider>/<model>` on the provider of
 * the prompt's version overrides its model, the template and stored settings staying; the prompt's
 * own deployment name changes nothing; anything else is a 400 naming `model`.
 */
describe('responses: model beside prompt (OpenAI SDK, fake OpenAI-compatible upstream)', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    upstream = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: upstream.url, apiKey: 'sk-up' });
    await deploy(t, p, {
      slug: 'tuned',
      provider: 'upstream',
      model: 'gpt-stored',
      parameters: { temperature: 0.2, max_tokens: 50 },
      template: [{ role: 'system', content: 'Be {{tone}}.' }],
      variables: { tone: 'kind' },
    });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  it("'<provider>/<model>' overrides the deployed model; template, stored settings and variables apply; echoed and logged", async () => {
    const response = await openai.responses.create({
      model: 'upstream/gpt-override',
      prompt: { id: 'tuned', variables: { tone: 'exact' } },
      input: 'hello',
      max_output_tokens: 20,
    });
    expect(response.status).toBe('completed');
    expect(response.model).toBe('upstream/gpt-override');
    const sent = upstream.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: 'gpt-override', temperature: 0.2 });
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(20);
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be exact.' },
      { role: 'user', content: 'hello' },
    ]);
    const [log] = (await requestLogRows(t, p.projectId)).slice(-1);
    expect(log).toMatchObject({ prompt_slug: 'tuned', environment: 'production', model: 'gpt-override' });
    expect((await openai.responses.retrieve(response.id)).model).toBe('upstream/gpt-override');
  });

  it('streamed and counted the same way', async () => {
    const streamed = await openai.responses
      .stream({ model: 'upstream/gpt-stream', prompt: { id: 'tuned@production' }, input: 'go' })
      .finalResponse();
    expect(streamed.model).toBe('upstream/gpt-stream');
    expect(upstream.requests.at(-1)!.body).toMatchObject({ model: 'gpt-stream', stream: true });
    const count = await openai.responses.inputTokens.count({
      model: 'upstream/gpt-4o',
      prompt: { id: 'tuned' },
      input: 'hello there',
    } as never);
    expect(count.input_tokens).toBeGreaterThan(2);
  });

  it("the prompt's own deployment as `model` is accepted and changes nothing", async () => {
    for (const model of ['tuned', 'tuned@production']) {
      const response = await openai.responses.create({ model, prompt: { id: 'tuned' }, input: 'same' });
      expect(response.model).toBe(model);
      expect(upstream.requests.at(-1)!.body.model).toBe('gpt-stored');
    }
  });

  it("another provider or another deployment is a 400 naming 'model'; an unknown prompt still a 404 naming 'prompt'", async () => {
    const before = upstream.requests.length;
    await expect(openai.responses.create({ model: 'local/echo', prompt: { id: 'tuned' }, input: 'x' })).rejects.toMatchObject({
      status: 400,
      param: 'model',
      message: expect.stringContaining("runs on the provider 'upstream'"),
    });
    for (const model of ['other-prompt', 'tuned@staging', 'tuned@production:1']) {
      await expect(openai.responses.create({ model, prompt: { id: 'tuned' }, input: 'x' })).rejects.toMatchObject({
        status: 400,
        param: 'model',
        message: expect.stringContaining("'model' names another deployment than 'prompt'"),
      });
    }
    await expect(openai.responses.create({ model: 'upstream/gpt-x', prompt: { id: 'missing' }, input: 'x' })).rejects.toMatchObject({
      status: 404,
      param: 'prompt',
    });
    expect(upstream.requests.length).toBe(before);
  });
});
