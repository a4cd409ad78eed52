import type { Server } from 'node:http';

import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request, { type Response } from 'supertest';

import { AnthropicMessagesController } from '../../src/anthropic/messages.controller';
import { AnthropicMessagesService } from '../../src/anthropic/messages.service';
import { AnthropicMessagesTransport } from '../../src/anthropic/messages.transport';
import { configureApp } from '../../src/app.setup';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { SessionPrincipals } from '../../src/auth/session-cookie';
import { ApiException, databaseUnavailable } from '../../src/common/errors';
import { ExpressHttpAdapter } from '../../src/common/http/express-http-adapter';
import { AppConfig, loadAppConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { InvocationService } from '../../src/invocation/invocation.service';
import { providerFailure } from '../../src/invocation/invoke-errors';
import { LoggingModule } from '../../src/logging/logging.module';
import { MetricsService } from '../../src/metrics/metrics.service';
import { ProviderError } from '../../src/providers';
import { appGlobalEnhancers } from './support/controller-app';
import { createFakes, Fakes, KEYS, UNKNOWN_UUID } from './support/fakes';

/**
 * `/v1/messages` and `/v1/messages/count_tokens` (docs/anthropic-compatibility.md, "Errors"): every
 * error body in Anthropic's shape `{type: "error", error: {type, message}, request_id}` with its
 * status, whoever raised it (the global guard, the body DTO through the global pipe, the surface's
 * rules, the core, a provider), the app's global guard, pipe and filter bound as in the app and
 * the controller's own filter. Services are the tier's fakes (./support/fakes.ts: two deployments
 * on `local`); the real conditions, with the official SDK: test/anthropic-messages*.e2e-spec.ts.
 */
describe('controller tier: /v1/messages error bodies', () => {
  let app: INestApplication;
  let fakes: Fakes;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    fakes = createFakes();
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule, LoggingModule],
      controllers: [AnthropicMessagesController],
      providers: [
        ...appGlobalEnhancers(),
        SessionPrincipals,
        MetricsService,
        AnthropicMessagesService,
        AnthropicMessagesTransport,
        { provide: ApiKeysService, useValue: fakes.keys },
        { provide: InvocationService, useValue: fakes.invocation },
      ],
    })
      .overrideProvider(AppConfig)
      .useValue(loadAppConfig({ LOG_LEVEL: 'silent' }))
      .compile();
    app = moduleRef.createNestApplication(new ExpressHttpAdapter(), { bodyParser: false, logger: false });
    configureApp(app);
    await app.init();
  });
  afterAll(async () => {
    (app.getHttpServer() as Server).closeAllConnections();
    await app.close();
  });

  const valid = { model: 'summarize', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
  const send = (body: unknown, headers: Record<string, string> = { 'x-api-key': KEYS.full }, path = '/v1/messages') =>
    http()
      .post(path)
      .set(headers)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  const serviceCalls = () => fakes.invocation.calls.splice(0);

  function expectAnthropicError(res: Response, status: number, type: string, message: string, headers: Record<string, string> = {}) {
    expect({ status: res.status, body: res.body }).toEqual({
      status,
      body: { type: 'error', error: { type, message }, request_id: res.headers['x-request-id'] },
    });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['request-id']).toBe(res.headers['x-request-id']);
    for (const [name, value] of Object.entries(headers)) expect(res.headers[name]).toBe(value);
  }

  it('200: a Message for a valid body (the fake core answers "ok")', async () => {
    const res = await send(valid);
    expect([res.status, res.body.type, res.body.content, res.body.stop_reason]).toEqual([
      200,
      'message',
      [{ type: 'text', text: 'ok', citations: null }],
      'end_turn',
    ]);
    expect(serviceCalls()).toEqual(['resolve', 'prepare', 'run']);
  });

  it.each(['/v1/messages', '/v1/messages/count_tokens'])(
    '401 authentication_error and 403 permission_error on %s, before any service',
    async (path) => {
      const unknownKeys: Array<Record<string, string>> = [
        {},
        { 'x-api-key': 'ck-no-such-key' },
        { Authorization: 'Bearer ck-no-such-key' },
      ];
      for (const headers of unknownKeys)
        expectAnthropicError(await send(valid, headers, path), 401, 'authentication_error', 'Invalid API key');
      expectAnthropicError(
        await send(valid, { 'x-api-key': KEYS.logsOnly }, path),
        403,
        'permission_error',
        'This API key lacks the scope this endpoint needs: invoke',
      );
      expectAnthropicError(
        await send(valid, { 'x-api-key': KEYS.admin }, path),
        403,
        'permission_error',
        'This endpoint needs a project API key',
      );
      expect(serviceCalls()).toEqual([]);
    },
  );

  it.each([
    ['{"model":', 'There was an issue with the request body: the body is not valid JSON'],
    ['[1]', 'There was an issue with the request body: expected a JSON object'],
    [{ ...valid, max_tokens: undefined }, 'max_tokens: Field required'],
    [{ ...valid, max_tokens: 0 }, 'max_tokens: Too small: expected number to be >=1'],
    [{ ...valid, extra: 1 }, 'extra: Extra inputs are not permitted'],
    [{ ...valid, output_config: {} }, "output_config: is not supported by Parley's /v1/messages"],
    [{ ...valid, messages: [{ role: 'robot', content: 'x' }] }, "messages.0.role: role must be one of: 'user', 'assistant', 'system'"],
    [
      { ...valid, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] },
      "messages.0.content.0.source.type: an image source type must be one of: 'base64', 'url'",
    ],
    [
      { ...valid, system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }] },
      'system.0.cache_control: prompt caching (cache_control) is not supported by Parley',
    ],
  ])('400 invalid_request_error for %j, before any service', async (body, message) => {
    expectAnthropicError(await send(body), 400, 'invalid_request_error', message);
    expect(serviceCalls()).toEqual([]);
  });

  it("400 invalid_request_error for the surface's rules and the Idempotency-Key, 404 not_found_error for a model or thread", async () => {
    const thinking = { ...valid, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } };
    expectAnthropicError(
      await send(thinking),
      400,
      'invalid_request_error',
      'thinking: provider "local" cannot think: extended thinking needs an Anthropic or OpenAI-compatible reasoning model',
    );
    expectAnthropicError(
      await send({ ...valid, thread_id: UNKNOWN_UUID }),
      400,
      'invalid_request_error',
      'thread_id: applies to assistants only',
    );
    expectAnthropicError(
      await send(valid, { 'x-api-key': KEYS.full, 'Idempotency-Key': ' ' }),
      400,
      'invalid_request_error',
      'Idempotency-Key: must be 1 to 255 visible ASCII characters',
    );
    expectAnthropicError(
      await send({ ...valid, model: 'nope' }),
      404,
      'not_found_error',
      "model: The model 'nope' does not exist or you do not have access to it.",
    );
    expectAnthropicError(await send({ ...valid, model: 'helper', thread_id: UNKNOWN_UUID }), 404, 'not_found_error', 'Thread not found');
    serviceCalls();
  });

  it.each([
    [
      '429 rate_limit_error (Retry-After kept)',
      new ApiException(429, { error: 'Too Many Requests', message: 'Rate limit exceeded' }, { 'Retry-After': '3' }),
      429,
      'rate_limit_error',
      'Rate limit exceeded',
      { 'retry-after': '3' },
    ],
    [
      '400 naming the field a provider refused',
      providerFailure(new ProviderError('bad_request', 'no such tool', { param: 'stop' })),
      400,
      'invalid_request_error',
      'stop_sequences: no such tool',
      {},
    ],
    [
      '502 api_error',
      providerFailure(new ProviderError('upstream', 'anthropic upstream answered 500: boom')),
      502,
      'api_error',
      'anthropic upstream answered 500: boom',
      {},
    ],
    [
      '504 timeout_error',
      providerFailure(new ProviderError('timeout', 'anthropic upstream did not answer in time')),
      504,
      'timeout_error',
      'anthropic upstream did not answer in time',
      {},
    ],
    [
      '503 overloaded_error (Retry-After: 1)',
      databaseUnavailable(),
      503,
      'overloaded_error',
      'Database unavailable',
      { 'retry-after': '1' },
    ],
    ['500 api_error telling nothing of a bug', new TypeError('secret internals'), 500, 'api_error', 'Internal server error', {}],
  ])('%s from the core', async (_name, err, status, type, message, headers) => {
    fakes.invocation.failNextWith(err);
    expectAnthropicError(await send({ ...valid, model: 'summarize' }), status, type, message, headers);
    serviceCalls();
  });

  it('count_tokens: 400 for a field it does not take, 200 with the count', async () => {
    expectAnthropicError(
      await send(valid, undefined, '/v1/messages/count_tokens'),
      400,
      'invalid_request_error',
      'max_tokens: Extra inputs are not permitted',
    );
    const count = jest.fn().mockResolvedValue({ input_tokens: 5, exact: true });
    Object.assign(fakes.invocation, { countInputTokens: count });
    const res = await send({ model: 'summarize', messages: [{ role: 'user', content: 'hi' }] }, undefined, '/v1/messages/count_tokens');
    expect([res.status, res.body]).toEqual([200, { input_tokens: 5 }]);
    expect(count).toHaveBeenCalledTimes(1);
  });
});
