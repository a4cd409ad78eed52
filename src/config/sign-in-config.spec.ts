import { ConfigError, loadAppConfig } from './app-config';
import { parseSignInConfig, SignInConfigProblems } from './sign-in-config';

const OIDC = {
  OIDC_ISSUER: 'https://id.example.com/realms/acme/',
  OIDC_CLIENT_ID: 'parley',
  OIDC_CLIENT_SECRET: 'a-secret',
  PUBLIC_URL: 'https://parley.example.com/',
};

/** The problems parseSignInConfig names for `env`, one line each. */
function problems(env: Record<string, string>): string[] {
  try {
    parseSignInConfig(env);
  } catch (err) {
    if (err instanceof SignInConfigProblems) return err.lines;
    throw err;
  }
  return [];
}

describe('parseSignInConfig', () => {
  it('without any setting: no single sign-on, key sign-in on, no instance admins', () => {
    expect(parseSignInConfig({})).toEqual({ oidc: null, keySignIn: true, instanceAdmins: [], publicUrl: null });
  });

  it('reads an identity provider, with the defaults of the groups claim and the scopes', () => {
    expect(parseSignInConfig(OIDC)).toEqual({
      oidc: {
        issuer: 'https://id.example.com/realms/acme',
        insecureLoopback: false,
        clientId: 'parley',
        clientSecret: 'a-secret',
        redirectUri: 'https://parley.example.com/v2/console/oidc/callback',
        allowedDomains: null,
        groupsClaim: 'groups',
        scopes: 'openid email profile',
        providerName: null,
      },
      keySignIn: true,
      instanceAdmins: [],
      publicUrl: 'https://parley.example.com',
    });
  });

  it('reads the domains, the claim, the scopes, the key switch and the instance admins as written', () => {
    const config = parseSignInConfig({
      ...OIDC,
      OIDC_ALLOWED_DOMAINS: ' Example.com, example.org ,',
      OIDC_GROUPS_CLAIM: 'https://example.com/claims/groups',
      OIDC_SCOPES: 'openid  email groups',
      OIDC_PROVIDER_NAME: 'Okta',
      PARLEY_KEY_SIGN_IN: 'OFF',
      PARLEY_INSTANCE_ADMINS: 'Ada@Example.com, root@example.org',
    });
    expect(config.oidc).toMatchObject({
      allowedDomains: ['example.com', 'example.org'],
      groupsClaim: 'https://example.com/claims/groups',
      scopes: 'openid email groups',
      providerName: 'Okta',
    });
    expect(config.keySignIn).toBe(false);
    expect(config.instanceAdmins).toEqual(['ada@example.com', 'root@example.org']);
  });

  it('accepts http:// for an issuer on a loopback host only', () => {
    expect(parseSignInConfig({ ...OIDC, OIDC_ISSUER: 'http://localhost:8080' }).oidc).toMatchObject({ insecureLoopback: true });
    expect(parseSignInConfig({ ...OIDC, OIDC_ISSUER: 'http://127.0.0.1:8080/' }).oidc?.issuer).toBe('http://127.0.0.1:8080');
    expect(problems({ ...OIDC, OIDC_ISSUER: 'http://id.example.com' })).toEqual([
      'OIDC_ISSUER: must be the https:// issuer URL of the identity provider, without a query (http:// only on a loopback host)',
    ]);
  });

  it.each([
    [
      { ...OIDC, PUBLIC_URL: '' },
      'PUBLIC_URL: needed with OIDC_ISSUER (the provider sends people back to {PUBLIC_URL}/v2/console/oidc/callback)',
    ],
    [{ ...OIDC, OIDC_CLIENT_ID: '' }, 'OIDC_CLIENT_ID: needed with OIDC_ISSUER'],
    [{ ...OIDC, OIDC_CLIENT_SECRET: '' }, 'OIDC_CLIENT_SECRET: needed with OIDC_ISSUER'],
    [{ ...OIDC, OIDC_ISSUER: 'id.example.com' }, 'OIDC_ISSUER: must be the https:// issuer URL'],
    [{ ...OIDC, OIDC_ISSUER: 'https://id.example.com/?tenant=1' }, 'OIDC_ISSUER: must be the https:// issuer URL'],
    [{ ...OIDC, PUBLIC_URL: 'https://parley.example.com/parley' }, 'PUBLIC_URL: must be an origin such as https://parley.example.com'],
    [{ ...OIDC, PUBLIC_URL: 'ftp://parley.example.com' }, 'PUBLIC_URL: must be the http:// or https:// address'],
    [{ ...OIDC, OIDC_ALLOWED_DOMAINS: ' , ' }, 'OIDC_ALLOWED_DOMAINS: empty; name at least one domain, or unset it'],
    [
      { ...OIDC, OIDC_ALLOWED_DOMAINS: 'example.com,@example.org' },
      'OIDC_ALLOWED_DOMAINS: "@example.org" is not a domain such as example.com',
    ],
    [{ ...OIDC, OIDC_GROUPS_CLAIM: 'my groups' }, 'OIDC_GROUPS_CLAIM: a claim name'],
    [{ ...OIDC, OIDC_SCOPES: 'email profile' }, 'OIDC_SCOPES: must include openid'],
    [{ ...OIDC, OIDC_PROVIDER_NAME: 'x'.repeat(61) }, 'OIDC_PROVIDER_NAME: at most 60 characters'],
    [{ ...OIDC, PARLEY_KEY_SIGN_IN: 'maybe' }, 'PARLEY_KEY_SIGN_IN: must be on or off'],
    [{ ...OIDC, PARLEY_INSTANCE_ADMINS: 'ada@example.com,root' }, 'PARLEY_INSTANCE_ADMINS: "root" is not an e-mail address'],
    [{ PARLEY_KEY_SIGN_IN: 'off' }, 'PARLEY_KEY_SIGN_IN: off needs OIDC_ISSUER, or nobody could sign in to the console'],
    [
      { PARLEY_INSTANCE_ADMINS: 'ada@example.com' },
      'PARLEY_INSTANCE_ADMINS: needs OIDC_ISSUER (instance admins are made when they sign in)',
    ],
    [{ OIDC_CLIENT_ID: 'parley' }, 'OIDC_CLIENT_ID: set OIDC_ISSUER too'],
    [{ OIDC_ALLOWED_DOMAINS: 'example.com' }, 'OIDC_ALLOWED_DOMAINS: set OIDC_ISSUER too'],
  ])('refuses %j with one line naming the variable', (env, line) => {
    const found = problems(env as Record<string, string>);
    expect(found).toEqual([expect.stringContaining(line)]);
    expect(found[0]).not.toContain('\n');
  });

  it('stops the start with every problem at once, beside the other variables', () => {
    const env = { OIDC_ISSUER: 'https://id.example.com', HISTORY_CACHE_MB: 'lots' };
    expect(() => loadAppConfig(env)).toThrow(ConfigError);
    let message = '';
    try {
      loadAppConfig(env);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'Invalid configuration:',
      expect.stringMatching(/^ {2}HISTORY_CACHE_MB: /),
      '  OIDC_CLIENT_ID: needed with OIDC_ISSUER',
      '  OIDC_CLIENT_SECRET: needed with OIDC_ISSUER',
      '  PUBLIC_URL: needed with OIDC_ISSUER (the provider sends people back to {PUBLIC_URL}/v2/console/oidc/callback)',
    ]);
    expect(loadAppConfig(OIDC).signIn.oidc?.clientId).toBe('parley');
  });
});
