import { anthropicJson, anthropicMessage, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import { FakeUpstream, openaiCompletion, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const refused = (provider: string) =>
  `${provider} upstream refused: the host is not allowed by the operator's outbound policy (PROVIDER_ALLOWED_HOSTS)`;

/** docs/security.md "Outbound policy": a project key cannot make Parley call internal addresses. */
describe('invoke: outbound policy for provider base URLs', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  const lastLog = async () => (await requestLogRows(t, p.projectId)).pop()!;

  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startFakeOpenAIUpstream(), startFakeAnthropicUpstream()]);
    // Only the Anthropic fake's port is allowed: the same address on another port stays refused.
    t = await createTestApp({
      ...INVOKE_APP_ENV,
      PROVIDER_ALLOWED_HOSTS: `ollama.internal,127.0.0.1:${new URL(anthropic.url).port}`,
      PROVIDER_MAX_RETRIES: '2',
    });
    p = await createProject(t);
    api = client(t, p.key);
    const targets: Array<[string, 'openai' | 'anthropic', string]> = [
      ['loopback', 'openai', openai.url],
      ['by-name', 'openai', openai.url.replace('127.0.0.1', 'localhost')],
      ['metadata', 'openai', 'http://169.254.169.254/latest'],
      ['allowed', 'anthropic', anthropic.url],
    ];
    for (const [name, type, baseUrl] of targets) {
      await addProviderCredential(t, p, { name, type, baseUrl, apiKey: 'sk-x' });
      await deploy(t, p, { slug: name, provider: name, model: 'm' });
    }
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await Promise.all([openai.close(), anthropic.close()]);
  });

  it.each([
    ['loopback', 'openai'],
    ['by-name', 'openai'],
    ['metadata', 'openai'],
  ])('refuses the %s base URL with 502, calling nothing, and logs the refusal', async (slug, provider) => {
    openai.setNext(openaiJson(openaiCompletion({ content: 'must not be reached' })));
    const res = await api.post(invokePath(p, slug), { variables: {} });
    expect([res.status, res.body]).toEqual([502, { error: 'Bad Gateway', message: refused(provider) }]);
    expect(openai.requests).toHaveLength(0);
    expect(await lastLog()).toMatchObject({ status: 502, prompt_slug: slug, error: refused(provider) });
  });

  it('calls an allowed host and port', async () => {
    anthropic.setNext(anthropicJson(anthropicMessage({ text: 'allowed' })));
    const res = await api.post(invokePath(p, 'allowed'), {}).expect(200);
    expect(res.body.choices[0].message.content).toBe('allowed');
    expect(anthropic.requests).toHaveLength(1);
  });

  it('refuses a streamed call the same way, before the stream starts', async () => {
    const res = await api.post(invokePath(p, 'loopback'), { stream: true });
    expect([res.status, res.body]).toEqual([502, { error: 'Bad Gateway', message: refused('openai') }]);
    expect(openai.requests).toHaveLength(0);
  });
});

describe('PROVIDER_ALLOWED_HOSTS validation', () => {
  it('stops the start on an entry that is not a host, address or range', async () => {
    await expect(createTestApp({ PROVIDER_ALLOWED_HOSTS: 'ollama,http://10.0.0.5' })).rejects.toThrow(
      'PROVIDER_ALLOWED_HOSTS: "http://10.0.0.5" is not a host name, IP address or IP range (CIDR), with an optional :port',
    );
  });
});
