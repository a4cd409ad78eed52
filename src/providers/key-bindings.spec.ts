import { destinationOf, isBoundDestination, parseKeyBindings } from './key-bindings';

describe('PROVIDER_KEY_BINDINGS', () => {
  const bindings = parseKeyBindings(
    'PARLEY_PROVIDER_OPENAI_KEY=api.openai.com; PARLEY_PROVIDER_LOCAL=ollama:11434,127.0.0.1,[::1]:8000',
    'PARLEY_PROVIDER_',
  );

  it('parses variables with their hosts, names lower-cased as a URL writes them', () => {
    expect(parseKeyBindings('PARLEY_PROVIDER_X=API.Example.COM', 'PARLEY_PROVIDER_').get('PARLEY_PROVIDER_X')).toEqual([
      { host: 'api.example.com' },
    ]);
    expect(bindings.get('PARLEY_PROVIDER_LOCAL')).toEqual([
      { host: 'ollama', port: 11434 },
      { host: '127.0.0.1' },
      { host: '[::1]', port: 8000 },
    ]);
    expect(parseKeyBindings(undefined, 'PARLEY_PROVIDER_').size).toBe(0);
  });

  it('refuses variables outside the prefix, entries without hosts, and hosts that are not hosts', () => {
    expect(() => parseKeyBindings('HOME=api.openai.com', 'PARLEY_PROVIDER_')).toThrow(/prefix/);
    expect(() => parseKeyBindings('PARLEY_PROVIDER_X', 'PARLEY_PROVIDER_')).toThrow(/at least one host/);
    expect(() => parseKeyBindings('PARLEY_PROVIDER_X=https://api.openai.com', 'PARLEY_PROVIDER_')).toThrow(/not a host name/);
    expect(() => parseKeyBindings('PARLEY_PROVIDER_X=a.com:99999', 'PARLEY_PROVIDER_')).toThrow(/not a host name/);
  });

  it('matches the base URL host as written, any port unless one is bound; the type default without a baseUrl', () => {
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_OPENAI_KEY', 'openai', null)).toBe(true);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_OPENAI_KEY', 'openai', 'https://API.openai.com/v1')).toBe(true);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_OPENAI_KEY', 'anthropic', null)).toBe(false);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_OPENAI_KEY', 'openai', 'https://api.openai.com.evil.example/v1')).toBe(false);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_OPENAI_KEY', 'openai', 'https://evil.example/v1?api.openai.com')).toBe(false);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_OPENAI_KEY', 'openai', 'https://api.openai.com@evil.example/v1')).toBe(false);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_LOCAL', 'openai', 'http://127.0.0.1:1234/v1')).toBe(true);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_LOCAL', 'openai', 'http://127.0.0.2:1234/v1')).toBe(false);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_LOCAL', 'openai', 'http://ollama:11434/v1')).toBe(true);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_LOCAL', 'openai', 'http://ollama:11435/v1')).toBe(false);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_LOCAL', 'openai', 'http://[::1]:8000/v1')).toBe(true);
    expect(isBoundDestination(bindings, 'PARLEY_PROVIDER_UNBOUND', 'openai', null)).toBe(false);
    expect(destinationOf('openai', 'not a url')).toBeUndefined();
  });
});
