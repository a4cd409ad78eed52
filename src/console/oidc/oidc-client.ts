import { Injectable } from '@nestjs/common';
import type * as OpenIdClient from 'openid-client';

import { AppConfig } from '../../config/app-config';
import type { OidcSettings } from '../../config/sign-in-config';

/** A discovered provider is used this long, then discovered again (its endpoints and keys may have moved). */
export const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** When discovering again fails, the last good discovery goes on serving this long after it was made. */
export const DISCOVERY_STALE_MAX_MS = 24 * 60 * 60 * 1000;
/** Attempts of one discovery, and the waits between them. */
const DISCOVERY_RETRY_WAITS_MS = [200, 800];
/** Seconds each request to the provider may take (discovery, token, keys, user info). */
const PROVIDER_TIMEOUT_S = 10;

/** What the provider vouched for: the ID token's claims, completed by the UserInfo endpoint's. */
export type IdentityClaims = Record<string, unknown> & { sub: string };

/** What the callback checks the provider's answer against: kept in the browser's flow cookie (oidc-flow-cookie.ts). */
export interface FlowChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** openid-client 6 is an ES module; Node 20.19+ `require`s it, so it loads (once) only when single sign-on is used. */
let library: Promise<typeof OpenIdClient> | null = null;
const openIdClient = (): Promise<typeof OpenIdClient> => (library ??= import('openid-client'));

/**
 * The identity provider as Parley's client of it (docs/security.md, "Sign-in"), through openid-client:
 * discovery (cached for DISCOVERY_TTL_MS, retried on failure, the last good one kept through a
 * failed refresh), the authorization URL with PKCE (S256), state and nonce, and the code exchange,
 * which checks the state, the PKCE verifier, and the ID token's issuer, audience, expiry, nonce and
 * signature (enableNonRepudiationChecks: openid-client would otherwise trust the token endpoint's TLS for it). The issuer is the operator's own setting, so the outbound policy for providers
 * (PROVIDER_ALLOWED_HOSTS) does not apply to it: that policy guards URLs that API callers choose.
 */
@Injectable()
export class OidcClient {
  private discovered: { configuration: OpenIdClient.Configuration; at: number } | null = null;
  private discovering: Promise<OpenIdClient.Configuration> | null = null;

  constructor(private readonly config: AppConfig) {}

  get settings(): OidcSettings | null {
    return this.config.signIn.oidc;
  }

  /** Fresh random values for one sign-in, and the authorization URL that carries them (S256 challenge). */
  async start(): Promise<{ url: URL; checks: FlowChecks }> {
    const [client, configuration] = await Promise.all([openIdClient(), this.configuration()]);
    const settings = this.settings!;
    const checks = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: settings.redirectUri,
      scope: settings.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    });
    return { url, checks };
  }

  /**
   * Exchanges the code of `callbackUrl` (PUBLIC_URL's callback with the provider's query) and
   * returns the verified claims. A claim the ID token lacks (e-mail, groups: conforming providers
   * put the scopes' claims at the UserInfo endpoint only) is read there, for the same subject.
   */
  async finish(callbackUrl: URL, checks: FlowChecks): Promise<IdentityClaims> {
    const [client, configuration] = await Promise.all([openIdClient(), this.configuration()]);
    const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    const wanted = ['email', this.settings!.groupsClaim];
    if (wanted.some((name) => claims[name] === undefined) && configuration.serverMetadata().userinfo_endpoint && tokens.access_token) {
      const info = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      return { ...info, ...claims };
    }
    return { ...claims };
  }

  /** The discovered provider: cached, discovered once at a time, and the last good one through a failed refresh. */
  async configuration(): Promise<OpenIdClient.Configuration> {
    const now = Date.now();
    if (this.discovered && now - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered.configuration;
    this.discovering ??= this.discover().finally(() => (this.discovering = null));
    try {
      return await this.discovering;
    } catch (err) {
      if (this.discovered && now - this.discovered.at < DISCOVERY_STALE_MAX_MS) return this.discovered.configuration;
      throw err;
    }
  }

  private async discover(): Promise<OpenIdClient.Configuration> {
    const client = await openIdClient();
    const settings = this.settings;
    if (!settings) throw new Error('OIDC_ISSUER is not set');
    for (let attempt = 0; ; attempt++) {
      try {
        const configuration = await client.discovery(
          new URL(settings.issuer),
          settings.clientId,
          undefined,
          clientAuthentication(client, settings.clientSecret),
          {
            // The ID token's signature is checked too (with the provider's published keys), not only the TLS of the token endpoint.
            execute: settings.insecureLoopback
              ? [client.enableNonRepudiationChecks, client.allowInsecureRequests]
              : [client.enableNonRepudiationChecks],
            timeout: PROVIDER_TIMEOUT_S,
          },
        );
        this.discovered = { configuration, at: Date.now() };
        return configuration;
      } catch (err) {
        if (attempt >= DISCOVERY_RETRY_WAITS_MS.length) throw err;
        await new Promise((resolve) => setTimeout(resolve, DISCOVERY_RETRY_WAITS_MS[attempt]));
      }
    }
  }
}

/**
 * client_secret_basic, the method a client is registered with unless it says otherwise (OpenID
 * Connect Registration), and the one providers that hold clients to their registered method
 * (Okta, Auth0) expect by default; client_secret_post only for a provider that offers it and not basic.
 */
function clientAuthentication(client: typeof OpenIdClient, secret: string): OpenIdClient.ClientAuth {
  const basic = client.ClientSecretBasic(secret);
  const post = client.ClientSecretPost(secret);
  return (server, metadata, body, headers) => {
    const methods = server.token_endpoint_auth_methods_supported;
    const postOnly = Array.isArray(methods) && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    (postOnly ? post : basic)(server, metadata, body, headers);
  };
}
