import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';

import { invalidApiKey, notFound } from './api-exception';
import { ApiExceptionFilter } from './api-exception.filter';
import { openaiError } from './openai-error';

/** The parts of an express Response the filter uses, recording what it was told. */
function fakeResponse(headersSent = false) {
  return {
    headersSent,
    headers: {} as Record<string, string>,
    statusCode: 0,
    body: undefined as unknown,
    ended: false,
    setHeader(name: string, value: string) {
      this.headers[name.toLowerCase()] = value;
      return this;
    },
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    json(body: unknown) {
      this.body = body;
      return this;
    },
    end() {
      this.ended = true;
      return this;
    },
  };
}

function answer(exception: unknown, res = fakeResponse(), path = '/v2/threads') {
  const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ path }) }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(exception, host);
  return res;
}

describe('ApiExceptionFilter', () => {
  let logged: jest.SpyInstance;
  beforeEach(() => (logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined)));
  afterEach(() => logged.mockRestore());

  it('answers an ApiException with its body as JSON, even after a handler declared another type', () => {
    const res = fakeResponse();
    res.setHeader('Content-Type', 'application/yaml; charset=utf-8');
    answer(notFound('Project not found'), res);
    expect(res).toMatchObject({ statusCode: 404, body: { error: { message: 'Project not found' } } });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it("gives Nest's own exceptions the {error: {message}} shape", () => {
    expect(answer(new NotFoundException('Cannot GET /x'))).toMatchObject({
      statusCode: 404,
      body: { error: { message: 'Cannot GET /x' } },
    });
  });

  it('answers a lost database connection with 503 and Retry-After', () => {
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('Connection terminated unexpectedly'),
    ]) {
      const res = answer(err);
      expect(res).toMatchObject({ statusCode: 503, body: { error: 'Service Unavailable', message: 'Database unavailable' } });
      expect(res.headers['retry-after']).toBe('1');
    }
  });

  it('answers text PostgreSQL refused (U+0000 in text or jsonb) with a 400, and warns', () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    for (const code of ['22021', '22P05']) {
      const err = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { driverError: { code } });
      expect(answer(err)).toMatchObject({ statusCode: 400, body: { error: { message: expect.stringContaining('U+0000') } } });
    }
    expect(warned).toHaveBeenCalledTimes(2);
    warned.mockRestore();
  });

  it('answers anything else with a 500 that tells nothing, and logs it', () => {
    const res = answer(new Error('relation "secrets" does not exist'));
    expect(res).toMatchObject({ statusCode: 500, body: { error: { message: 'Internal server error' } } });
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('relation "secrets" does not exist'));
  });

  it('only ends a response whose headers went out already (a stream reports its own errors)', () => {
    const res = answer(new Error('late'), fakeResponse(true));
    expect(res).toMatchObject({ ended: true, statusCode: 0, body: undefined });
  });

  it("answers every error under /v1 in OpenAI's shape, keeping status and headers", () => {
    expect(answer(invalidApiKey(), fakeResponse(), '/v1/chat/completions')).toMatchObject({
      statusCode: 401,
      body: { error: { message: 'Invalid API key', type: 'authentication_error', param: null, code: 'invalid_api_key' } },
    });
    const unavailable = answer(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), fakeResponse(), '/v1/models');
    expect(unavailable).toMatchObject({ statusCode: 503, body: { error: { message: 'Database unavailable', param: null } } });
    expect(unavailable.headers['retry-after']).toBe('1');
    const own = openaiError(400, 'Unknown parameter', { param: 'n' });
    expect(answer(own, fakeResponse(), '/v1/chat/completions').body).toEqual({
      error: { message: 'Unknown parameter', type: 'invalid_request_error', param: 'n', code: null },
    });
  });
});
