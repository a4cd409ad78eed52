import type { TestApp } from './test-app';

/** The cookies one browser holds for one site, by name (paths ignored: a test's few cookies do not collide). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(setCookie: string[] | string | undefined): void {
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const gone =
        value === '' || attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface ProviderRound {
  /** What the provider redirected to, as a path and query of Parley's (the callback, with code and state). */
  callback: string;
  /** Parley's cookies in this browser: the sign-in flow's (`parley_oidc`), and a session it had. */
  parley: CookieJar;
  /** The provider's cookies in this browser. */
  provider: CookieJar;
}

/**
 * A browser's way through the code flow, over HTTP with cookie jars, every redirect followed by
 * hand: Parley's GET /v2/console/oidc/login, the provider's authorize endpoint, its login form
 * (any password) and its consent form, up to the redirect back to Parley's callback, which is
 * returned unopened. `cancel`: the person cancels at the login form (the provider's access_denied).
 */
export async function throughProvider(
  t: TestApp,
  publicUrl: string,
  options: { login: string; returnTo?: string; headers?: Record<string, string>; cancel?: boolean; parley?: CookieJar },
): Promise<ProviderRound> {
  const parley = options.parley ?? new CookieJar();
  const provider = new CookieJar();
  const query = options.returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(options.returnTo)}`;
  const start = await t
    .http()
    .get(`/v2/console/oidc/login${query}`)
    .set({ ...options.headers, ...(parley.header() ? { Cookie: parley.header() } : {}) })
    .expect(302);
  parley.take(start.headers['set-cookie']);
  let location: string = start.headers.location;
  for (let step = 0; step < 12; step++) {
    if (location.startsWith(`${publicUrl}/`)) return { callback: location.slice(publicUrl.length), parley, provider };
    let res = await fetch(location, { redirect: 'manual', headers: { cookie: provider.header() } });
    provider.take(res.headers.getSetCookie());
    if (res.status === 200) {
      const page = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      if (!action || !prompt) throw new Error(`no form on the provider's page ${location}: ${page.slice(0, 500)}`);
      if (options.cancel && prompt === 'login') {
        res = await fetch(new URL(`${action}/abort`, location), { redirect: 'manual', headers: { cookie: provider.header() } });
      } else {
        const form: Record<string, string> = prompt === 'login' ? { prompt, login: options.login, password: 'any password' } : { prompt };
        res = await fetch(new URL(action, location), {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: provider.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
      }
      provider.take(res.headers.getSetCookie());
    }
    const next = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !next)
      throw new Error(`the provider answered ${res.status} at ${location}: ${await res.text()}`);
    location = new URL(next, location).href;
  }
  throw new Error('no redirect back to Parley after 12 steps');
}

/** Parley's callback opened in that browser: the answer (a redirect) and the cookies it set. */
export async function openCallback(t: TestApp, round: ProviderRound, headers: Record<string, string> = {}, callback = round.callback) {
  const res = await t
    .http()
    .get(callback)
    .set({ ...headers, ...(round.parley.header() ? { Cookie: round.parley.header() } : {}) });
  round.parley.take(res.headers['set-cookie']);
  return res;
}
