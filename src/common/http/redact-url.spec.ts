import { redactUrl } from './redact-url';

describe('redactUrl', () => {
  it('keeps URLs without credentials as they are', () => {
    for (const url of [
      '/v2/threads',
      '/v2/threads?limit=20&after=01900000-0000-7000-8000-000000000000',
      '/v2/logs?metadata=customer:c_42&order=asc',
      '/v2/prompts/monkey?v=',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('redacts parameters named like a credential, whatever their value', () => {
    expect(redactUrl('/v2/threads?api_key=secret1&limit=5')).toBe('/v2/threads?api_key=[REDACTED]&limit=5');
    for (const name of [
      'key',
      'apiKey',
      'api-key',
      'X-API-Key',
      'token',
      'access_token',
      'authorization',
      'client_secret',
      'password',
      'sig',
    ]) {
      expect(redactUrl(`/x?${name}=abc`)).toBe(`/x?${name}=[REDACTED]`);
    }
  });

  it('redacts a Parley key under any name, encoded or not, even as a name', () => {
    const key = 'pk_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    expect(redactUrl(`/v2/threads?q=${key}`)).toBe('/v2/threads?q=[REDACTED]');
    expect(redactUrl(`/v2/threads?q=Bearer%20${key}`)).toBe('/v2/threads?q=[REDACTED]');
    expect(redactUrl(`/v2/threads?${key}`)).toBe('/v2/threads?[REDACTED]=[REDACTED]');
    expect(redactUrl('/v2/threads?ak_0123456789abcdefghij=1&limit=2')).toBe('/v2/threads?[REDACTED]=[REDACTED]&limit=2');
  });

  it("redacts the OpenID Connect callback's code, state and nonce, and a SCIM token under any name", () => {
    expect(redactUrl('/v2/console/oidc/callback?code=abc123&state=xyz&iss=https%3A%2F%2Fid.example.com')).toBe(
      '/v2/console/oidc/callback?code=[REDACTED]&state=[REDACTED]&iss=https%3A%2F%2Fid.example.com',
    );
    expect(redactUrl('/x?nonce=n1&q=pscim_AbCdEfGhIjKlMnOpQrSt')).toBe('/x?nonce=[REDACTED]&q=[REDACTED]');
  });

  it('does not take names that merely contain the letters for credentials', () => {
    expect(redactUrl('/x?monkey=1&tokenizer_model=2&keyword=3')).toBe('/x?monkey=1&tokenizer_model=2&keyword=3');
  });
});
