import { Test } from '@nestjs/testing';

import { startFakeAnthropicUpstream } from '../../test/fakes/fake-anthropic-upstream';
import { FakeUpstream, startFakeOpenAIUpstream } from '../../test/fakes/fake-openai-upstream';
import { httpStatusFor, ProviderError } from './provider.types';
import { ProvidersModule } from './providers.module';
import { ProvidersService } from './providers.service';

describe('ProvidersService', () => {
  it('has built-in defaults when the module is imported as is', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ProvidersModule] }).compile();
    expect(moduleRef.get(ProvidersService).defaults).toEqual({
      timeoutMs: 60_000,
      maxRetries: 2,
      maxRetryAfterSeconds: 30,
      allowedHosts: [],
    });
  });

  it('takes defaults from register/registerAsync', async () => {
    const sync = await Test.createTestingModule({ imports: [ProvidersModule.register({ timeoutMs: 1234 })] }).compile();
    expect(sync.get(ProvidersService).defaults).toEqual({ timeoutMs: 1234, maxRetries: 2, maxRetryAfterSeconds: 30, allowedHosts: [] });
    const factory = await Test.createTestingModule({
      imports: [ProvidersModule.registerAsync({ useFactory: async () => ({ maxRetries: 0, maxRetryAfterSeconds: 5 }) })],
    }).compile();
    expect(factory.get(ProvidersService).defaults).toEqual({ timeoutMs: 60_000, maxRetries: 0, maxRetryAfterSeconds: 5, allowedHosts: [] });
  });

  describe('dispatching by credentials type', () => {
    let openai: FakeUpstream;
    let anthropic: FakeUpstream;
    let service: ProvidersService;

    beforeAll(async () => {
      [openai, anthropic] = await Promise.all([startFakeOpenAIUpstream(), startFakeAnthropicUpstream()]);
      const moduleRef = await Test.createTestingModule({
        imports: [ProvidersModule.register({ timeoutMs: 300, maxRetries: 0, allowedHosts: [{ host: '127.0.0.1' }] })],
      }).compile();
      service = moduleRef.get(ProvidersService);
    });
    afterAll(() => Promise.all([openai.close(), anthropic.close()]));

    it('sends each call to the adapter of its type', async () => {
      const messages = [{ role: 'user' as const, content: 'route me' }];
      const viaLocal = await service.complete({ model: 'echo', messages }, { type: 'local' });
      const viaOpenAI = await service.complete({ model: 'gpt-x', messages }, { type: 'openai', baseUrl: openai.url, apiKey: 'k' });
      const viaAnthropic = await service.complete(
        { model: 'claude-x', messages },
        { type: 'anthropic', baseUrl: anthropic.url, apiKey: 'k' },
      );

      expect([viaLocal, viaOpenAI, viaAnthropic].map((r) => r.completion.choices[0].message.content)).toEqual([
        'route me',
        'route me',
        'route me',
      ]);
      expect(openai.requests.map((r) => r.body.model)).toEqual(['gpt-x']);
      expect(anthropic.requests.map((r) => r.body.model)).toEqual(['claude-x']);
    });

    it('applies its configured timeout to upstream calls', async () => {
      openai.setNext({ type: 'hang' });
      const started = Date.now();
      const err = await service
        .complete({ model: 'gpt-x', messages: [{ role: 'user', content: 'x' }] }, { type: 'openai', baseUrl: openai.url, apiKey: 'k' })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.kind).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('rejects an unknown provider type', () => {
      expect(() => service.adapterFor('cohere')).toThrow(/Unknown provider type "cohere"/);
    });
  });

  it('maps error kinds to HTTP statuses', () => {
    const status = (kind: ProviderError['kind']) => httpStatusFor(new ProviderError(kind, 'x'));
    expect(
      ['upstream', 'connection', 'timeout', 'rate_limited', 'bad_request', 'aborted'].map((k) => status(k as ProviderError['kind'])),
    ).toEqual([502, 502, 504, 429, 400, 499]);
  });
});
