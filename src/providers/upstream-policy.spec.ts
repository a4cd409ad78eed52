import { anthropicJson, anthropicMessage, startFakeAnthropicUpstream } from '../../test/fakes/fake-anthropic-upstream';
import { FakeUpstream, openaiError, startFakeOpenAIUpstream } from '../../test/fakes/fake-openai-upstream';
import { AnthropicProvider } from './anthropic.provider';
import { OpenAIProvider } from './openai.provider';
import { OutboundPolicyError, parseAllowedHosts } from './outbound-policy';
import { httpStatusFor, ProviderError, ProviderRequest } from './provider.types';
import { UpstreamHttp } from './upstream-http';

const REFUSED = "openai upstream refused: the host is not allowed by the operator's outbound policy (PROVIDER_ALLOWED_HOSTS)";
const req: ProviderRequest = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** Adapters on their own UpstreamHttp with this allowlist; refusals are collected. */
function withPolicy(allowed: string) {
  const refusals: OutboundPolicyError[] = [];
  const http = new UpstreamHttp({ timeoutMs: 2000, maxRetries: 2, allowedHosts: parseAllowedHosts(allowed) }, (err) => refusals.push(err));
  return { openai: new OpenAIProvider(http), anthropic: new AnthropicProvider(http), refusals, close: () => http.destroy() };
}

describe('outbound policy at connect time', () => {
  let fake: FakeUpstream;
  let port: string;
  beforeEach(async () => {
    fake = await startFakeOpenAIUpstream();
    port = new URL(fake.url).port;
  });
  afterEach(() => fake.close());

  it('refuses a loopback upstream by default, without retrying, and reports it', async () => {
    const policy = withPolicy('');
    try {
      const err = await failure(policy.openai.complete(req, { type: 'openai', baseUrl: fake.url }));
      expect([err.kind, err.message, httpStatusFor(err)]).toEqual(['connection', REFUSED, 502]);
      expect(fake.requests).toHaveLength(0);
      expect(policy.refusals.map((r) => [r.host, r.port, r.category])).toEqual([['127.0.0.1', Number(port), 'loopback']]);
    } finally {
      await policy.close();
    }
  });

  it.each([
    ['http://[::1]:9/v1', 'loopback'],
    ['http://10.0.0.1/v1', 'private'],
    ['http://192.168.0.10:11434/v1', 'private'],
    ['http://169.254.1.1/v1', 'link-local'],
    ['http://169.254.169.254/latest', 'metadata'],
    ['http://[fd00:ec2::254]/v1', 'metadata'],
    ['http://0.0.0.0:80/v1', 'unspecified'],
    ['http://[::ffff:127.0.0.1]:9/v1', 'loopback'],
  ])('refuses %s (%s) before connecting, on both engines', async (baseUrl, category) => {
    const policy = withPolicy('');
    try {
      const openai = await failure(policy.openai.complete(req, { type: 'openai', baseUrl }));
      const anthropic = await failure(policy.anthropic.complete(req, { type: 'anthropic', baseUrl }));
      expect(openai.message).toBe(REFUSED);
      expect(anthropic.message).toBe(REFUSED.replace('openai', 'anthropic'));
      expect(policy.refusals.map((r) => r.category)).toEqual([category, category]);
    } finally {
      await policy.close();
    }
  });

  it('checks the resolved address of a host name: localhost is refused', async () => {
    const policy = withPolicy('');
    try {
      const err = await failure(policy.openai.complete(req, { type: 'openai', baseUrl: `http://localhost:${port}/v1` }));
      expect(err.message).toBe(REFUSED);
      expect(policy.refusals[0]).toMatchObject({ host: 'localhost', category: 'loopback' });
      expect(fake.requests).toHaveLength(0);
    } finally {
      await policy.close();
    }
  });

  it.each([['127.0.0.1'], ['localhost'], [`127.0.0.1:PORT`], ['127.0.0.0/8']])('lets %s through when allowed', async (entry) => {
    const policy = withPolicy(entry.replace('PORT', port));
    const host = entry === 'localhost' ? 'localhost' : '127.0.0.1';
    try {
      const result = await policy.openai.complete(req, { type: 'openai', baseUrl: `http://${host}:${port}/v1` });
      expect(result.completion.choices[0].message.content).toBe('hello');
      expect(policy.refusals).toEqual([]);
    } finally {
      await policy.close();
    }
  });

  it('an allowed address with another port is still refused', async () => {
    const policy = withPolicy(`127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}`);
    try {
      expect((await failure(policy.openai.complete(req, { type: 'openai', baseUrl: fake.url }))).message).toBe(REFUSED);
    } finally {
      await policy.close();
    }
  });

  it('does not follow a redirect, even to an allowed host', async () => {
    const policy = withPolicy('127.0.0.1');
    const target = await startFakeAnthropicUpstream();
    try {
      target.setNext(anthropicJson(anthropicMessage({ text: 'should not be reached' })));
      fake.setNext({ type: 'text', status: 302, body: 'moved', headers: { location: `${target.url}/v1/messages` } });
      const err = await failure(policy.openai.complete(req, { type: 'openai', baseUrl: fake.url }));
      expect([err.kind, err.status, httpStatusFor(err)]).toEqual(['upstream', 302, 502]);
      expect(err.message).toBe('openai upstream answered 302: a redirect, which Parley does not follow');
      expect(fake.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    } finally {
      await Promise.all([policy.close(), target.close()]);
    }
  });

  it('cuts the upstream error text to 500 characters and never names the address of an unreachable upstream', async () => {
    const policy = withPolicy('127.0.0.1');
    try {
      fake.setNext(openaiError(400, 'x'.repeat(5000)));
      const long = await failure(policy.openai.complete(req, { type: 'openai', baseUrl: fake.url }));
      expect(long.message).toBe(`openai upstream answered 400: ${'x'.repeat(500)}…`);
      expect(long.upstreamText).toBe(`${'x'.repeat(500)}…`);
      expect(long.recordableMessage).toBe('openai upstream answered 400: [not recorded]');

      const closed = await startFakeOpenAIUpstream();
      await closed.close();
      const unreachable = await failure(policy.openai.complete(req, { type: 'openai', baseUrl: closed.url }, { maxRetries: 0 }));
      expect([unreachable.kind, unreachable.message]).toEqual(['connection', 'openai upstream unreachable: connection refused']);
    } finally {
      await policy.close();
    }
  });
});
