/**
 * How people sign in to the console (docs/security.md, "Sign-in"): OpenID Connect, the key
 * sign-in switch and the instance admins made at sign-in. Parsed from the environment at start;
 * each problem is one line naming its variable.
 */

/** The variables read here (app-config.ts reads the rest). */
export const SIGN_IN_ENV_NAMES = [
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'OIDC_ALLOWED_DOMAINS',
  'OIDC_GROUPS_CLAIM',
  'OIDC_SCOPES',
  'OIDC_PROVIDER_NAME',
  'PUBLIC_URL',
  'PARLEY_KEY_SIGN_IN',
  'PARLEY_INSTANCE_ADMINS',
] as const;

/** Where the provider sends people back: `{PUBLIC_URL}` followed by this (the contract of DESIGN §13). */
export const OIDC_CALLBACK_PATH = '/v2/console/oidc/callback';

export interface OidcSettings {
  /** The issuer identifier; discovery reads `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `{PUBLIC_URL}/v2/console/oidc/callback`: the redirect URI registered at the provider. */
  redirectUri: string;
  /** Lower-case domains the verified e-mail must be in (exactly, no subdomains); null: any. */
  allowedDomains: readonly string[] | null;
  /** The claim whose array of strings is the person's groups (matched against group roles by exact name). */
  groupsClaim: string;
  /** The scopes asked for, `openid` among them. */
  scopes: string;
  /** Shown on the sign-in button ("Sign in with …"); null: "single sign-on". */
  providerName: string | null;
  /** http:// is accepted for an issuer on a loopback host only (development, tests). */
  insecureLoopback: boolean;
}

export interface SignInConfig {
  /** Null when OIDC_ISSUER is not set: no single sign-on. */
  oidc: OidcSettings | null;
  /** PARLEY_KEY_SIGN_IN (default on): whether the console accepts a key at POST /v2/console/session. */
  keySignIn: boolean;
  /** PARLEY_INSTANCE_ADMINS, lower-case: these verified e-mails become instance admins when they sign in. */
  instanceAdmins: readonly string[];
  /** PUBLIC_URL without a trailing slash (an origin); null when unset. */
  publicUrl: string | null;
}

type Env = Partial<Record<(typeof SIGN_IN_ENV_NAMES)[number], string | undefined>>;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const CLAIM_NAME = /^[^\s]{1,200}$/;

/** A problem with the sign-in settings, `NAME: what is wrong`: one line each. */
export class SignInConfigProblems extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
  }
}

const value = (env: Env, name: keyof Env): string | undefined => {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
};

/** A comma list, blanks between commas ignored. */
const list = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** PUBLIC_URL: an http(s) origin (Parley's routes are at the root: no path, query or fragment). */
function parsePublicUrl(text: string, problems: string[]): string | null {
  const url = parseUrl(text);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    problems.push('PUBLIC_URL: must be the http:// or https:// address people reach Parley at, e.g. https://parley.example.com');
    return null;
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    problems.push('PUBLIC_URL: must be an origin such as https://parley.example.com, without a path, query or fragment');
    return null;
  }
  return url.origin;
}

/** OIDC_ISSUER: https://, or http:// on a loopback host; no query or fragment (the issuer identifier of OpenID Connect Discovery). */
function parseIssuer(text: string, problems: string[]): { issuer: string; insecureLoopback: boolean } | null {
  const url = parseUrl(text);
  const loopback = url !== null && LOOPBACK_HOSTS.has(url.hostname);
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.search || url.hash || url.username) {
    problems.push(
      'OIDC_ISSUER: must be the https:// issuer URL of the identity provider, without a query (http:// only on a loopback host)',
    );
    return null;
  }
  // As the provider spells it, less a trailing slash its `issuer` usually does not have (openid-client compares them exactly).
  return { issuer: text.replace(/\/+$/, ''), insecureLoopback: url.protocol === 'http:' };
}

/** The sign-in settings, or every problem with them at once. */
export function parseSignInConfig(env: Env): SignInConfig {
  const problems: string[] = [];
  const issuerText = value(env, 'OIDC_ISSUER');
  const clientId = value(env, 'OIDC_CLIENT_ID');
  const clientSecret = env.OIDC_CLIENT_SECRET === '' ? undefined : env.OIDC_CLIENT_SECRET;
  const publicText = value(env, 'PUBLIC_URL');
  const publicUrl = publicText === undefined ? null : parsePublicUrl(publicText, problems);

  const keySwitch = value(env, 'PARLEY_KEY_SIGN_IN')?.toLowerCase() ?? 'on';
  if (keySwitch !== 'on' && keySwitch !== 'off') problems.push('PARLEY_KEY_SIGN_IN: must be on or off');

  const instanceAdmins = list(value(env, 'PARLEY_INSTANCE_ADMINS') ?? '').map((email) => email.toLowerCase());
  const badAdmin = instanceAdmins.find((email) => !EMAIL.test(email));
  if (badAdmin !== undefined) problems.push(`PARLEY_INSTANCE_ADMINS: "${badAdmin}" is not an e-mail address (a comma-separated list)`);

  let oidc: OidcSettings | null = null;
  if (issuerText === undefined) {
    const needsIssuer = (
      ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ALLOWED_DOMAINS', 'OIDC_GROUPS_CLAIM', 'OIDC_SCOPES'] as const
    ).find((name) => value(env, name) !== undefined);
    if (needsIssuer) problems.push(`${needsIssuer}: set OIDC_ISSUER too (single sign-on is configured by OIDC_ISSUER)`);
    if (keySwitch === 'off') problems.push('PARLEY_KEY_SIGN_IN: off needs OIDC_ISSUER, or nobody could sign in to the console');
    if (instanceAdmins.length > 0) problems.push('PARLEY_INSTANCE_ADMINS: needs OIDC_ISSUER (instance admins are made when they sign in)');
  } else {
    const issuer = parseIssuer(issuerText, problems);
    if (clientId === undefined) problems.push('OIDC_CLIENT_ID: needed with OIDC_ISSUER');
    else if (clientId.length > 500) problems.push('OIDC_CLIENT_ID: at most 500 characters');
    if (clientSecret === undefined) problems.push('OIDC_CLIENT_SECRET: needed with OIDC_ISSUER');
    if (publicText === undefined) {
      problems.push(`PUBLIC_URL: needed with OIDC_ISSUER (the provider sends people back to {PUBLIC_URL}${OIDC_CALLBACK_PATH})`);
    }

    const domainsText = env.OIDC_ALLOWED_DOMAINS;
    const domains = domainsText === undefined ? null : list(domainsText).map((domain) => domain.toLowerCase());
    if (domains !== null && domains.length === 0) problems.push('OIDC_ALLOWED_DOMAINS: empty; name at least one domain, or unset it');
    const badDomain = domains?.find((domain) => !DOMAIN.test(domain));
    if (badDomain !== undefined) problems.push(`OIDC_ALLOWED_DOMAINS: "${badDomain}" is not a domain such as example.com`);

    const groupsClaim = value(env, 'OIDC_GROUPS_CLAIM') ?? 'groups';
    if (!CLAIM_NAME.test(groupsClaim)) problems.push('OIDC_GROUPS_CLAIM: a claim name, at most 200 characters without spaces');

    const scopeList = (value(env, 'OIDC_SCOPES') ?? 'openid email profile').split(/\s+/);
    if (!scopeList.includes('openid')) problems.push('OIDC_SCOPES: must include openid');
    if (!scopeList.every((scope) => SCOPE_TOKEN.test(scope))) problems.push('OIDC_SCOPES: space-separated scope names');

    const providerName = value(env, 'OIDC_PROVIDER_NAME') ?? null;
    if (providerName !== null && providerName.length > 60) problems.push('OIDC_PROVIDER_NAME: at most 60 characters');

    if (issuer && clientId && clientSecret && publicUrl) {
      oidc = {
        issuer: issuer.issuer,
        insecureLoopback: issuer.insecureLoopback,
        clientId,
        clientSecret,
        redirectUri: `${publicUrl}${OIDC_CALLBACK_PATH}`,
        allowedDomains: domains,
        groupsClaim,
        scopes: [...new Set(scopeList)].join(' '),
        providerName,
      };
    }
  }
  if (problems.length > 0) throw new SignInConfigProblems(problems);
  return { oidc, keySignIn: keySwitch !== 'off', instanceAdmins, publicUrl };
}
