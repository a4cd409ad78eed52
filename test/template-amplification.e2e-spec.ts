import OpenAI from 'openai';

import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const REPEATS = 1000;
/** The template: one variable used 1,000 times. */
const amplifier = [{ role: 'system', content: Array.from({ length: REPEATS }, () => '{{doc}}').join(' ') }];

/**
 * A template's rendered size is bounded (TEMPLATE_MAX_RENDERED_CHARS, docs/templates.md): a
 * 400 KB variable repeated 1,000 times would render 400 MB. The render stops at the bound, the call
 * is a 400 in the spec's issue format with a request log row, and the provider is never called.
 */
describe('template amplification', () => {
  let t: TestApp;
  let p: TestProject;
  let fake: FakeUpstream;
  let base: string;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'fake', type: 'openai', baseUrl: fake.url, apiKey: 'sk-test' });
    await deploy(t, p, { slug: 'amplifier', provider: 'fake', model: 'gpt-fake', template: amplifier });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('a 400 KB variable repeated 1,000 times: 400 with issues, logged, the upstream never called, in well under a second of work', async () => {
    const before = fake.requests.length;
    const started = performance.now();
    const rss = process.memoryUsage().rss;
    const res = await t
      .http()
      .post(invokePath(p, 'amplifier'))
      .set('X-API-Key', p.key)
      .send({ variables: { doc: 'x'.repeat(400_000) } });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Invalid request body',
      issues: [
        { code: 'invalid_type', keys: [], path: ['variables'], message: expect.stringContaining('would exceed 1000000 characters') },
      ],
    });
    expect(fake.requests.length).toBe(before);
    const [log] = (await requestLogRows(t, p.projectId)).slice(-1);
    expect(log).toMatchObject({ prompt_slug: 'amplifier', status: 400, error: expect.stringContaining('would exceed 1000000 characters') });
    // The render stopped at the bound: nothing near 400 MB was built.
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
    expect(elapsed).toBeLessThan(5000);

    // The same key again replays the refusal (a 400 is stored) without calling anyone.
    const again = await t
      .http()
      .post(invokePath(p, 'amplifier'))
      .set('X-API-Key', p.key)
      .set('Idempotency-Key', 'amp-1')
      .send({ variables: { doc: 'y'.repeat(400_000) } });
    expect(again.status).toBe(400);
    expect(fake.requests.length).toBe(before);
  });

  it('under the bound the same template renders and is sent whole', async () => {
    const before = fake.requests.length;
    const res = await t
      .http()
      .post(invokePath(p, 'amplifier'))
      .set('X-API-Key', p.key)
      .send({ variables: { doc: 'ab' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    expect(fake.requests.length).toBe(before + 1);
    const sent = fake.requests.at(-1)!.body as { messages: { content: string }[] };
    expect(sent.messages[0].content).toBe(Array.from({ length: REPEATS }, () => 'ab').join(' '));
  });

  it('/v1/chat/completions: a BadRequestError naming variables, and a log row', async () => {
    const before = fake.requests.length;
    const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    const err = await openai.chat.completions
      .create({ model: 'amplifier@production', messages: [{ role: 'user', content: 'hi' }], variables: { doc: 'z'.repeat(2000) } } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ status: 400, param: 'variables', message: expect.stringContaining('would exceed 1000000 characters') });
    expect(fake.requests.length).toBe(before);
    const [log] = (await requestLogRows(t, p.projectId)).slice(-1);
    expect(log).toMatchObject({ status: 400 });
  });
});
