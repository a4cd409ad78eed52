import { ProviderError } from '../providers';
import { statusError, streamErrorEvent, toProviderError } from '../providers/upstream-errors';
import { fallbackReasonOf, FirstTokenTimeout, mayFallBack } from './fallback';

describe('fallbackReasonOf', () => {
  it.each([
    [429, 'rate_limit'],
    [408, 'timeout'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [529, 'server_error'],
  ])('an upstream %i is %s', (status, reason) => {
    expect(fallbackReasonOf(statusError('openai', status, '{"error":{"message":"x"}}'))).toBe(reason);
  });

  it.each([400, 401, 403, 404, 409, 413, 422])("the caller's own %i never falls back", (status) => {
    expect(fallbackReasonOf(statusError('openai', status, 'no'))).toBeNull();
  });

  it('timeouts, connection failures, malformed streams and first-token timeouts', () => {
    expect(fallbackReasonOf(toProviderError({ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'openai', undefined, 100))).toBe('timeout');
    expect(fallbackReasonOf(toProviderError({ code: 'UND_ERR_BODY_TIMEOUT' }, 'openai', undefined, 100))).toBe('timeout');
    expect(fallbackReasonOf(toProviderError({ code: 'ECONNREFUSED' }, 'openai', undefined, 100))).toBe('connection');
    expect(fallbackReasonOf(toProviderError({ code: 'ECONNRESET' }, 'openai', undefined, 100, true))).toBe('connection');
    expect(fallbackReasonOf(toProviderError(new SyntaxError('Unexpected token'), 'openai', undefined, 100, true))).toBe('server_error');
    expect(fallbackReasonOf(streamErrorEvent('anthropic', { error: { type: 'overloaded_error', message: 'Overloaded' } }))).toBe(
      'server_error',
    );
    expect(fallbackReasonOf(new FirstTokenTimeout('openai', 500))).toBe('first_token_timeout');
  });

  it('a cancelled call and anything that is not a provider failure never fall back', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(fallbackReasonOf(toProviderError(new Error('x'), 'openai', aborted.signal, 100))).toBeNull();
    expect(fallbackReasonOf(new ProviderError('bad_request', 'unknown model'))).toBeNull();
    expect(fallbackReasonOf(new TypeError('bug'))).toBeNull();
  });

  it('mayFallBack holds the reason to fallbackOn', () => {
    const err = statusError('openai', 429, '');
    expect(mayFallBack(err, ['rate_limit'])).toBe(true);
    expect(mayFallBack(err, ['server_error'])).toBe(false);
  });
});
