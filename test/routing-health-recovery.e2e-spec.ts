import { FakeUpstream, openaiError, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, invokePath, listen } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * A fallback target recovers even while an earlier target serves every call (docs/routing.md,
 * "Health"): planning never takes a target's probe, only the call that reaches it does. Before
 * that, every call planned (and so took for 10 s) the probe of a cooled-down fallback that the
 * primary then made unnecessary, and the fallback stayed out of every plan while the primary was
 * healthy: the primary's next failure had nowhere to fall.
 */
describe('routing: a cooled-down fallback target comes back while the primary serves', () => {
  const COOLDOWN_MS = 200;
  let t: TestApp;
  let p: TestProject;
  let base: string;
  let alpha: FakeUpstream;
  let beta: FakeUpstream;

  const call = () =>
    fetch(`${base}${invokePath(p, 'recovering')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': p.key },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
  const servedBy = (res: Response) => `${res.status} ${res.headers.get('x-parley-provider')} ${res.headers.get('x-parley-attempts')}`;

  beforeAll(async () => {
    alpha = await startFakeOpenAIUpstream();
    beta = await startFakeOpenAIUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PARLEY_ROUTING_COOLDOWN_MS: String(COOLDOWN_MS), PROVIDER_MAX_RETRIES: '0' });
    base = await listen(t);
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'alpha', type: 'openai', baseUrl: alpha.url, apiKey: 'sk-alpha' });
    await addProviderCredential(t, p, { name: 'beta', type: 'openai', baseUrl: beta.url, apiKey: 'sk-beta' });
    const as = { 'X-API-Key': p.key };
    await t.http().post('/v2/prompts').set(as).send({ slug: 'recovering', kind: 'prompt' }).expect(200);
    await t
      .http()
      .post('/v2/prompts/recovering/versions')
      .set(as)
      .send({
        template: [{ role: 'system', content: 'Be brief.' }],
        routing: {
          targets: [
            { provider: 'alpha', model: 'm-a' },
            { provider: 'beta', model: 'm-b' },
          ],
        },
      })
      .expect(200);
    await t.http().post('/v2/prompts/recovering/deployments').set(as).send({ environment: 'production' }).expect(200);
  });
  afterAll(async () => {
    await t.close();
    await alpha.close();
    await beta.close();
  });

  it('falls over to the fallback on the primary failure after both tripped and the primary recovered', async () => {
    // Both targets fail three calls in a row: both cool down.
    for (let i = 0; i < 3; i++) {
      alpha.setNext(openaiError(500, 'alpha is down'));
      beta.setNext(openaiError(500, 'beta is down'));
      expect(servedBy(await call())).toBe('502 beta 2');
    }
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 50));
    // The primary is back: it serves (its first call is its probe), the fallback is never reached.
    const betaBefore = beta.requests.length;
    for (let i = 0; i < 3; i++) expect(servedBy(await call())).toBe('200 alpha 1');
    expect(beta.requests.length).toBe(betaBefore);
    // The primary fails again: the fallback, planned again after its cooldown, is this call's probe and serves.
    alpha.setNext(openaiError(500, 'alpha is down again'));
    expect(servedBy(await call())).toBe('200 beta 2');
    expect(beta.requests.length).toBe(betaBefore + 1);
  });
});
