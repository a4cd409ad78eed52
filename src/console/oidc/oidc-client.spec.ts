import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { AppConfig } from '../../config/app-config';
import { parseSignInConfig } from '../../config/sign-in-config';
import { DISCOVERY_STALE_MAX_MS, DISCOVERY_TTL_MS, OidcClient } from './oidc-client';

/** A provider's discovery document on loopback that fails as told: `failures` answers of 503 before each good one. */
async function discoveryServer(): Promise<{
  issuer: string;
  requests: () => number;
  failNext: (n: number) => void;
  close: () => Promise<void>;
}> {
  let requests = 0;
  let failures = 0;
  let issuer = '';
  const server: Server = createServer((req, res) => {
    requests++;
    if (req.url !== '/.well-known/openid-configuration' || failures > 0) {
      failures = Math.max(0, failures - 1);
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    requests: () => requests,
    failNext: (n) => (failures = n),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('OidcClient discovery', () => {
  let provider: Awaited<ReturnType<typeof discoveryServer>>;
  let client: OidcClient;
  let now: jest.SpyInstance<number, []>;
  let clock = Date.now();

  beforeEach(async () => {
    provider = await discoveryServer();
    const signIn = parseSignInConfig({
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: 'parley',
      OIDC_CLIENT_SECRET: 'secret',
      PUBLIC_URL: 'http://127.0.0.1:1',
    });
    client = new OidcClient({ signIn } as AppConfig);
    clock = Date.now();
    now = jest.spyOn(Date, 'now').mockImplementation(() => clock);
  });
  afterEach(async () => {
    now.mockRestore();
    await provider.close();
  });

  it('retries a failed discovery, and makes one at a time for callers at once', async () => {
    provider.failNext(2);
    const [a, b] = await Promise.all([client.configuration(), client.configuration()]);
    expect(a).toBe(b);
    expect(a.serverMetadata().issuer).toBe(provider.issuer);
    expect(provider.requests()).toBe(3);
  });

  it('serves the cached discovery until it is DISCOVERY_TTL_MS old, then discovers again', async () => {
    const first = await client.configuration();
    clock += DISCOVERY_TTL_MS - 1;
    expect(await client.configuration()).toBe(first);
    expect(provider.requests()).toBe(1);
    clock += 1;
    const second = await client.configuration();
    expect(second).not.toBe(first);
    expect(provider.requests()).toBe(2);
  });

  it('keeps serving the last good discovery through a failed one, until it is DISCOVERY_STALE_MAX_MS old', async () => {
    const first = await client.configuration();
    clock += DISCOVERY_TTL_MS;
    provider.failNext(3);
    expect(await client.configuration()).toBe(first);
    expect(provider.requests()).toBe(4);
    clock = clock - DISCOVERY_TTL_MS + DISCOVERY_STALE_MAX_MS;
    provider.failNext(3);
    await expect(client.configuration()).rejects.toThrow();
    // Nothing failed is cached: the next sign-in discovers again.
    expect(await client.configuration()).not.toBe(first);
  });
});
