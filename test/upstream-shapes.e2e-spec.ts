import { openaiCompletion, openaiJson } from './fakes/fake-openai-upstream';
import { FakeUpstream, startFakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * An upstream that answers in another API's shape (an OpenAI-compatible server behind an
 * `anthropic` credential, an error page as JSON) is named as such in the answer and the log
 * (docs/providers.md, "Failures"), never a TypeError logged as "failed unexpectedly".
 */
describe('upstream answers of another shape', () => {
  let t: TestApp;
  let p: TestProject;
  let openaiShaped: FakeUpstream;
  let odd: FakeUpstream;

  beforeAll(async () => {
    openaiShaped = await startFakeUpstream(() => openaiJson(openaiCompletion({ content: 'I am OpenAI-shaped' })));
    odd = await startFakeUpstream(() => openaiJson({ choices: { not: 'a list' } }));
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'claude-ish', type: 'anthropic', baseUrl: openaiShaped.url, apiKey: 'sk-ant' });
    await addProviderCredential(t, p, { name: 'odd', type: 'openai', baseUrl: odd.url, apiKey: 'sk-odd' });
  });
  afterAll(async () => {
    await t.close();
    await openaiShaped.close();
    await odd.close();
  });

  it.each([
    ['claude-ish/claude-x', /anthropic upstream answered something that is not a Messages API message: content: /],
    ['odd/gpt-x', /openai upstream answered something that is not a chat completion: choices: /],
  ])('%s: a 502 naming the shape, and a log that says the same', async (model, reason) => {
    const res = await t
      .http()
      .post('/v1/chat/completions')
      .set('X-API-Key', p.key)
      .send({ model, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toMatch(reason);
    const logs = (await requestLogRows(t, p.projectId)).filter((row) => `${row.provider_name}/${row.model}` === model);
    expect(logs).toEqual([expect.objectContaining({ status: 502, error: expect.stringMatching(reason) })]);
  });
});
