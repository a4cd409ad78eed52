/**
 * PROVIDER_KEY_BINDINGS (docs/security.md, "Provider keys from the server's environment"): which
 * hosts may receive the key of each environment variable the operator lends to projects, e.g.
 * `PARLEY_PROVIDER_OPENAI_KEY=api.openai.com;PARLEY_PROVIDER_LOCAL_KEY=ollama:11434,10.0.0.5`.
 *
 * A host is matched as written in the credential's base URL (URL-normalised: lower case, IPv6 in
 * brackets), never by what it resolves to: the key is meant for a name, and TLS checks that name.
 * An entry without a port matches any port of that host; with one, only that port (the scheme's
 * default when the URL names none).
 */
export interface HostBinding {
  host: string;
  port?: number;
}

export type KeyBindings = ReadonlyMap<string, readonly HostBinding[]>;

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,199}$/;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}$/;

/** Where a credential of each type sends its key when it names no baseUrl. */
export const DEFAULT_PROVIDER_HOSTS: Readonly<Record<string, string>> = { openai: 'api.openai.com', anthropic: 'api.anthropic.com' };

function parseHost(entry: string, variable: string): HostBinding {
  const bracketed = /^(\[[0-9a-fA-F:.]+\])(?::(\d+))?$/.exec(entry);
  const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(entry);
  const match = bracketed ?? plain;
  const host = match?.[1].toLowerCase();
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  const validHost = host !== undefined && (bracketed ? true : IPV4.test(host) || HOSTNAME.test(host));
  if (!validHost || (port !== undefined && (port < 1 || port > 65535))) {
    throw new Error(`${variable}: "${entry}" is not a host name or IP address with an optional :port`);
  }
  // Written as a URL would normalise it, so that comparing with URL.hostname is exact.
  const normalised = new URL(`http://${host}`).hostname;
  return port === undefined ? { host: normalised } : { host: normalised, port };
}

/** Parses the setting; throws with a message naming the bad entry. Variables must start with `prefix`. */
export function parseKeyBindings(value: string | undefined, prefix: string): KeyBindings {
  const bindings = new Map<string, HostBinding[]>();
  for (const entry of (value ?? '').split(/[;\s]+/).filter(Boolean)) {
    const eq = entry.indexOf('=');
    const variable = eq < 0 ? entry : entry.slice(0, eq);
    if (!VARIABLE.test(variable) || !variable.startsWith(prefix) || variable.length === prefix.length) {
      throw new Error(`"${variable}" is not an environment variable under the prefix "${prefix}" (PROVIDER_API_KEY_ENV_PREFIX)`);
    }
    const hosts =
      eq < 0
        ? []
        : entry
            .slice(eq + 1)
            .split(',')
            .filter(Boolean);
    if (hosts.length === 0) throw new Error(`${variable}: name at least one host, as ${variable}=api.example.com`);
    bindings.set(variable, [...(bindings.get(variable) ?? []), ...hosts.map((host) => parseHost(host, variable))]);
  }
  return bindings;
}

/** The host and port a credential's key would be sent to; undefined for a base URL that does not parse. */
export function destinationOf(type: string, baseUrl: string | null | undefined): { host: string; port: number } | undefined {
  if (!baseUrl) {
    const host = DEFAULT_PROVIDER_HOSTS[type];
    return host ? { host, port: 443 } : undefined;
  }
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { host: url.hostname, port };
  } catch {
    return undefined;
  }
}

/** Whether the operator bound `variable` to the host (and port) a credential of `type` at `baseUrl` calls. */
export function isBoundDestination(bindings: KeyBindings, variable: string, type: string, baseUrl: string | null | undefined): boolean {
  const hosts = bindings.get(variable);
  const destination = destinationOf(type, baseUrl);
  if (!hosts || !destination) return false;
  return hosts.some((bound) => bound.host === destination.host && (bound.port === undefined || bound.port === destination.port));
}

export const describeBindings = (hosts: readonly HostBinding[]) =>
  hosts.map((h) => (h.port === undefined ? h.host : `${h.host}:${h.port}`)).join(', ');
