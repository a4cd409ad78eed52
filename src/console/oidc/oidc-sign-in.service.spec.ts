import { groupsOf, MAX_GROUP_NAME, MAX_GROUPS } from './oidc-sign-in.service';
import { refusalOfExchange } from './sign-in-refusal';

describe('groupsOf: the groups claim as kept', () => {
  it('keeps strings in the provider order, each once; one string is one group', () => {
    expect(groupsOf(['b', 'a', 'b', 7, null, { name: 'x' }, ''])).toEqual(['b', 'a']);
    expect(groupsOf('engineering')).toEqual(['engineering']);
    expect(groupsOf(undefined)).toEqual([]);
    expect(groupsOf({ groups: ['a'] })).toEqual([]);
  });

  it(`drops names longer than ${MAX_GROUP_NAME} characters or holding control characters, never cuts them; keeps ${MAX_GROUPS} at most`, () => {
    const long = 'g'.repeat(MAX_GROUP_NAME + 1);
    expect(groupsOf([long, 'g'.repeat(MAX_GROUP_NAME), 'nul\u0000', 'ok'])).toEqual(['g'.repeat(MAX_GROUP_NAME), 'ok']);
    const many = Array.from({ length: MAX_GROUPS + 50 }, (_, i) => `group-${i}`);
    expect(groupsOf(many)).toEqual(many.slice(0, MAX_GROUPS));
  });
});

describe('refusalOfExchange', () => {
  const named = (name: string, fields: object) => Object.assign(new Error('x'), { name }, fields);

  it("a code the token endpoint refuses is the client's failure; a provider that fails is not", () => {
    expect(refusalOfExchange(named('ResponseBodyError', { status: 400, error: 'invalid_grant' }))).toMatchObject({
      code: 'token_rejected',
      detail: 'token endpoint: invalid_grant',
      clientsFault: true,
    });
    expect(refusalOfExchange(named('ResponseBodyError', { status: 503, error: 'temporarily_unavailable' }))).toMatchObject({
      code: 'provider_unavailable',
      clientsFault: false,
    });
    expect(refusalOfExchange(new TypeError('fetch failed'))).toMatchObject({ code: 'provider_unavailable', clientsFault: false });
    expect(refusalOfExchange(named('ClientError', { code: 'OAUTH_TIMEOUT' }))).toMatchObject({ code: 'provider_unavailable' });
  });

  it("names the ID token's failed check from the cause's message only, never its claims", () => {
    const cause = Object.assign(new Error('unexpected JWT "aud" (audience) claim value'), { claims: { email: 'secret@example.com' } });
    const refusal = refusalOfExchange(named('ClientError', { code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause }));
    expect(refusal).toMatchObject({
      code: 'token_rejected',
      detail: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED: unexpected JWT "aud" (audience) claim value',
    });
    expect(refusalOfExchange(new RangeError('boom'))).toMatchObject({ code: 'server_error', clientsFault: false });
  });
});
