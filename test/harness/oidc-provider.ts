import { createPrivateKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OpenID provider on loopback for the sign-in tests (docs/testing.md): `oidc-provider` 8
 * (panva's certified implementation), its development login and consent pages
 * (features.devInteractions: any login, any password), the clients the test registers, and the
 * accounts it adds. An account's claims are `email`, `email_verified`, `name` and `groups`; the
 * `groups` claim comes with the `groups` scope. As conforming providers do, the ID token of the
 * code flow carries the scopes' claims only at the UserInfo endpoint (conformIdTokenClaims).
 *
 * Knobs make it misbehave the ways a real provider, or an attacker in the middle, could:
 * `idTokenTtlSeconds` (a negative one issues ID tokens that expired already), `tamperIdToken` (its
 * ID tokens changed and signed again with its own key, e.g. for another audience) and
 * `tamperSigner: 'stranger'` (signed again with a key that is not the provider's).
 */
export interface OidcTestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface OidcTestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: unknown;
}

export interface TestOidcProvider {
  /** `http://<host>:<port>`: the issuer identifier (OIDC_ISSUER). */
  issuer: string;
  /** By login (what one types on the login page); the login is the subject. */
  accounts: Map<string, OidcTestAccount>;
  idTokenTtlSeconds: number;
  tamperIdToken: ((claims: Record<string, unknown>) => Record<string, unknown>) | null;
  tamperSigner: 'provider' | 'stranger';
  close(): Promise<void>;
}

export interface OidcProviderOptions {
  clients: OidcTestClient[];
  /** The issuer's host name: `localhost` makes it another site than Parley on 127.0.0.1 (SameSite), for browsers. Listens on 127.0.0.1. */
  host?: '127.0.0.1' | 'localhost';
  port?: number;
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** Re-signs a compact JWS (RS256) with new claims: what a provider whose key signed it could have issued. */
function resign(jwt: string, change: (claims: Record<string, unknown>) => Record<string, unknown>, key: KeyObject): string {
  const [header, payload] = jwt.split('.');
  const claims = change(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  const signingInput = `${header}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${base64url(sign('sha256', Buffer.from(signingInput), key))}`;
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<TestOidcProvider> {
  const { default: Provider } = await import('oidc-provider');
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const signingKey = createPrivateKey({ key: jwk, format: 'jwk' });
  const strangerKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

  const state: TestOidcProvider = {
    issuer,
    accounts: new Map(),
    idTokenTtlSeconds: 600,
    tamperIdToken: null,
    tamperSigner: 'provider',
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    async findAccount(_ctx: unknown, id: string) {
      const account = state.accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    features: { devInteractions: { enabled: true } },
    jwks: { keys: [jwk] },
    cookies: { keys: ['oidc-test-provider-cookie-key-0123456789'] },
    pkce: { required: () => true },
    ttl: { IdToken: () => state.idTokenTtlSeconds, AuthorizationCode: 60, AccessToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    // Not the library's warnings about development features in a test's output.
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = `<!DOCTYPE html><title>oops</title><pre>${JSON.stringify(out).replace(/</g, '&lt;')}</pre>`;
    },
  });
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: unknown } | null;
    if (ctx.path === '/token' && state.tamperIdToken && body && typeof body.id_token === 'string') {
      body.id_token = resign(body.id_token, state.tamperIdToken, state.tamperSigner === 'provider' ? signingKey : strangerKey);
    }
  });
  server.on('request', provider.callback());
  return state;
}
