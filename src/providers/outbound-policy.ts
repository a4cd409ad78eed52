/**
 * Where provider calls may go (docs/security.md "Outbound policy"): addresses that are private,
 * loopback, link-local, CGNAT, unspecified, multicast, reserved or a cloud metadata service are
 * refused unless the operator lists the host in PROVIDER_ALLOWED_HOSTS. The check runs in the
 * undici connector on the address actually connected to (after DNS), so a name that resolves
 * elsewhere on a second lookup (DNS rebinding) is caught too.
 */
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

import { buildConnector } from 'undici';

export type AddressCategory = 'metadata' | 'unspecified' | 'loopback' | 'private' | 'link-local' | 'CGNAT' | 'multicast' | 'reserved';

/** Checked in this order: the first match names the address. */
const RANGES: Array<[AddressCategory, string[]]> = [
  ['metadata', ['169.254.169.254/32', 'fd00:ec2::254/128', '100.100.100.200/32']],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['CGNAT', ['100.64.0.0/10']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  // IETF assignments, benchmarking, documentation, class E and broadcast, site-local, discard,
  // and IPv4-compatible IPv6 (::a.b.c.d).
  [
    'reserved',
    [
      '192.0.0.0/24',
      '192.0.2.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '240.0.0.0/4',
      'fec0::/10',
      '100::/64',
      '2001:db8::/32',
      '::/96',
    ],
  ],
];

const BLOCKS: Array<[AddressCategory, BlockList]> = RANGES.map(([category, cidrs]) => {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
  }
  return [category, list];
});

/** The IPv4 address a NAT64 address (64:ff9b::/96) stands for. IPv4-mapped ones BlockList handles. */
function nat64Target(ip: string): string | undefined {
  const match = /^64:ff9b::(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const high = Number.parseInt(match[2], 16);
  const low = Number.parseInt(match[3], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why an address may not be called without the operator's consent; undefined for a public one. */
export function addressCategory(ip: string): AddressCategory | undefined {
  const family = isIP(ip);
  if (family === 0) return 'reserved';
  const embedded = family === 6 ? nat64Target(ip) : undefined;
  if (embedded) return addressCategory(embedded);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const [category, list] of BLOCKS) if (list.check(ip, type)) return category;
  return undefined;
}

export class OutboundPolicyError extends Error {
  override readonly name = 'OutboundPolicyError';
  readonly code = 'PARLEY_OUTBOUND_REFUSED';
  /** What the caller is told: no address, no port. */
  readonly publicMessage = "the host is not allowed by the operator's outbound policy (PROVIDER_ALLOWED_HOSTS)";

  constructor(
    readonly host: string,
    readonly port: number,
    readonly category: AddressCategory,
  ) {
    super(`${host.includes(':') ? `[${host}]` : host}:${port} is a ${category} address, refused by the outbound policy`);
  }
}

/** One PROVIDER_ALLOWED_HOSTS entry: a host name, an IP address or an IP range, with an optional port. */
export interface AllowedHost {
  host: string;
  port?: number;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** Parses PROVIDER_ALLOWED_HOSTS (comma-separated); throws an Error naming the first bad entry. */
export function parseAllowedHosts(value: string | undefined): AllowedHost[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.map((entry) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const hostPort = /^([^:]+)(?::(\d+))?$/.exec(entry);
    const [host, port] = bracketed ? [bracketed[1], bracketed[2]] : hostPort ? [hostPort[1], hostPort[2]] : [entry, undefined];
    const name = host.toLowerCase().replace(/\.$/, '');
    const [net, bits, extra] = name.split('/');
    const validRange =
      bits !== undefined && extra === undefined && isIP(net) !== 0 && /^\d+$/.test(bits) && Number(bits) <= (isIP(net) === 6 ? 128 : 32);
    const valid = bits === undefined ? isIP(name) !== 0 || HOSTNAME.test(name) : validRange && port === undefined;
    const portNumber = port === undefined ? undefined : Number(port);
    if (!valid || (portNumber !== undefined && (portNumber < 1 || portNumber > 65535))) {
      throw new Error(`"${entry}" is not a host name, IP address or IP range (CIDR), with an optional :port`);
    }
    return portNumber === undefined ? { host: name } : { host: name, port: portNumber };
  });
}

type Connector = buildConnector.connector;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class OutboundPolicy {
  private readonly names: AllowedHost[] = [];
  private readonly addresses: Array<{ list: BlockList; port?: number }> = [];

  constructor(
    allowed: readonly AllowedHost[],
    private readonly onRefused: (err: OutboundPolicyError) => void = () => undefined,
  ) {
    for (const entry of allowed) {
      const [net, bits] = entry.host.split('/');
      if (isIP(net) === 0) {
        this.names.push(entry);
        continue;
      }
      const list = new BlockList();
      const type = isIP(net) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) list.addAddress(net, type);
      else list.addSubnet(net, Number(bits), type);
      this.addresses.push({ list, port: entry.port });
    }
  }

  /** The refusal for connecting to `ip` as `host`:`port`, or undefined when it is allowed. */
  refusal(host: string, port: number, ip: string): OutboundPolicyError | undefined {
    const category = addressCategory(ip);
    if (!category || this.allowsName(host, port) || this.allowsAddress(ip, port)) return undefined;
    const err = new OutboundPolicyError(host, port, category);
    this.onRefused(err);
    return err;
  }

  /** An undici connector that applies the policy to IP literals and to every resolved address. */
  connector(timeoutMs: number): Connector {
    const byPort = new Map<number, Connector>();
    const forPort = (port: number): Connector => {
      let connect = byPort.get(port);
      if (!connect) {
        connect = buildConnector({ timeout: timeoutMs, lookup: this.lookup(port) } as buildConnector.BuildOptions);
        if (byPort.size < 64) byPort.set(port, connect);
      }
      return connect;
    };
    return (options, callback) => {
      const host = options.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
      const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      // Node connects to an IP literal without a lookup: checked here.
      const refused = isIP(host) !== 0 ? this.refusal(host, port, host) : undefined;
      if (refused) return void queueMicrotask(() => callback(refused, null));
      return forPort(port)(options, callback);
    };
  }

  private lookup(port: number) {
    return (hostname: string, options: object, callback: LookupCallback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, []);
        const host = hostname.toLowerCase();
        for (const { address } of addresses) {
          const refused = this.refusal(host, port, address);
          if (refused) return callback(refused, []);
        }
        if ((options as { all?: boolean }).all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      });
    };
  }

  private allowsName(host: string, port: number): boolean {
    const name = host.replace(/\.$/, '');
    return this.names.some((entry) => entry.host === name && (entry.port === undefined || entry.port === port));
  }

  private allowsAddress(ip: string, port: number): boolean {
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    return this.addresses.some((entry) => (entry.port === undefined || entry.port === port) && entry.list.check(ip, type));
  }
}
