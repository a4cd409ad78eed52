import { consoleReturnTo, encodeFlow, FLOW_COOKIE, FLOW_TTL_S, flowCookieOptions, flowOf, SignInFlow } from './oidc-flow-cookie';

const FLOW: SignInFlow = {
  state: 's'.repeat(43),
  nonce: 'n'.repeat(43),
  codeVerifier: 'v'.repeat(43),
  returnTo: '/console/logs',
  startedAt: 1_000_000,
};

describe('the sign-in flow cookie', () => {
  it('is HttpOnly, SameSite=Lax (sent on the provider redirect back), for the callback path and ten minutes', () => {
    expect(flowCookieOptions(true)).toEqual({ httpOnly: true, sameSite: 'lax', secure: true, path: '/v2/console/oidc', maxAge: 600_000 });
  });

  it('reads back what it wrote, among other cookies', () => {
    const header = `parley_session=abc; ${FLOW_COOKIE}=${encodeFlow(FLOW)}; other=1`;
    expect(flowOf(header, FLOW.startedAt + 1000)).toEqual(FLOW);
  });

  it('is nothing when absent, malformed, incomplete, or older than its lifetime', () => {
    const cookie = `${FLOW_COOKIE}=${encodeFlow(FLOW)}`;
    expect(flowOf(undefined)).toBeNull();
    expect(flowOf('parley_session=abc')).toBeNull();
    expect(flowOf(`${FLOW_COOKIE}=not-json`)).toBeNull();
    expect(flowOf(`${FLOW_COOKIE}=${encodeFlow({ ...FLOW, state: '' })}`, FLOW.startedAt)).toBeNull();
    expect(flowOf(`${FLOW_COOKIE}=${Buffer.from('{"state":1}').toString('base64url')}`, FLOW.startedAt)).toBeNull();
    expect(flowOf(cookie, FLOW.startedAt + FLOW_TTL_S * 1000)).toEqual(FLOW);
    expect(flowOf(cookie, FLOW.startedAt + FLOW_TTL_S * 1000 + 1)).toBeNull();
  });

  it('lands a changed returnTo on the console all the same', () => {
    const cookie = `${FLOW_COOKIE}=${encodeFlow({ ...FLOW, returnTo: 'https://evil.example/' })}`;
    expect(flowOf(cookie, FLOW.startedAt)?.returnTo).toBe('/console');
  });
});

describe('consoleReturnTo', () => {
  it.each([
    ['/console', '/console'],
    ['/console/prompts/a?b=c', '/console/prompts/a?b=c'],
    ['/console/logs#top', '/console/logs'],
    ['/console/../v2/workspaces', '/console'],
    ['/consoles', '/console'],
    ['/v2/workspaces', '/console'],
    ['https://evil.example/console', '/console'],
    ['//evil.example/console', '/console'],
    ['/console\\@evil.example', '/console'],
    ['/console/\r\nSet-Cookie: x=1', '/console'],
    [undefined, '/console'],
    [['/console/logs'], '/console'],
    [`/console/${'a'.repeat(1000)}`, '/console'],
  ])('%j lands on %s', (value, expected) => {
    expect(consoleReturnTo(value)).toBe(expected);
  });
});
