import { AppConfig, loadAppConfig } from '../config/app-config';
import { DataDirLockedError, isDataDirLocked } from '../database/data-dir-lock';
import { EMBEDDED_DATABASE, isServerRunning, readServerInfo } from '../database/server-info';

/** Where a command that changes or reads the registry runs: through a server's REST API, or on the database. */
export type Route = { kind: 'server'; url: string; key: string } | { kind: 'direct'; config: AppConfig };

export interface RemoteOptions {
  url?: string;
  key?: string;
}

/** A server answered with an error; the message carries the error and each detail on its own line. */
export class RemoteApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describeErrorBody(status, body));
  }
}

export function describeErrorBody(status: number, body: unknown): string {
  const error = (body as { error?: unknown; message?: unknown } | null)?.error;
  if (error && typeof error === 'object') {
    const { message, details } = error as { message?: string; details?: string[] };
    return [message ?? `HTTP ${status}`, ...(details ?? []).map((d) => `  - ${d}`)].join('\n');
  }
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof error === 'string') return typeof message === 'string' ? `${error}: ${message}` : error;
  return `HTTP ${status}`;
}

/**
 * `--url` (with `--key`) names a server. Otherwise, on the embedded database, a DATA_DIR held by a
 * running server means going through that server with the token it wrote to DATA_DIR/server.json:
 * PGlite files must never be opened by two processes. With no way to reach the holder, the command
 * stops with DataDirLockedError before touching anything. Without DATABASE_URL, a running server on
 * PostgreSQL that wrote its token there is gone through the same way: the database it serves is
 * the one the command is meant for, and this one's environment need not name it again.
 */
export async function chooseRoute(options: RemoteOptions): Promise<Route> {
  if (options.url) {
    if (!options.key) throw new Error('--key (or PARLEY_KEY) is required with --url: the admin key, or a key of the project in the file');
    const url = options.url.replace(/\/+$/, '');
    announceTarget(`the Parley server at ${url} (--url)`);
    return { kind: 'server', url, key: options.key };
  }
  const config = loadAppConfig();
  if (config.embedded && !config.inMemory && (await isDataDirLocked(config.dataDir))) {
    const info = readServerInfo(config.dataDir);
    if (!info?.adminToken) throw new DataDirLockedError(config.dataDir);
    announceTarget(`the Parley server at ${info.url} (it holds the embedded database in ${config.dataDir})`);
    return { kind: 'server', url: info.url, key: info.adminToken };
  }
  if (config.embedded && !config.inMemory) {
    const info = readServerInfo(config.dataDir);
    if (info?.adminToken && info.database !== EMBEDDED_DATABASE && isServerRunning(info)) {
      announceTarget(`the Parley server at ${info.url} (it runs on ${info.database}; no DATABASE_URL set)`);
      return { kind: 'server', url: info.url, key: info.adminToken };
    }
  }
  return { kind: 'direct', config };
}

/**
 * Every command says on stderr which server or database it works on (stdout stays the command's
 * output, `--json` included): a command that silently changed another database than the one the
 * running server uses was the failure this prevents (docs/operations.md, "Running several instances").
 */
export function announceTarget(target: string): void {
  console.error(`parley: using ${target}`);
}

/** One JSON (or text) request to a Parley server; errors become RemoteApiError. `headers`: more, e.g. X-Parley-Project. */
export async function callServer(
  route: Extract<Route, { kind: 'server' }>,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(route.url + path, {
      method,
      headers: { ...headers, 'X-API-Key': route.key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new Error(`Cannot reach the Parley server at ${route.url}: ${cause}`, { cause: err });
  }
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('json');
  const parsed: unknown = isJson && text ? JSON.parse(text) : text;
  if (!response.ok) throw new RemoteApiError(response.status, parsed);
  return parsed;
}
