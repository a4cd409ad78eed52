import type { DataSource } from 'typeorm';

/**
 * How long a start waits for an unreachable PostgreSQL before it gives up: a database that is
 * starting (a container brought up beside Parley) gets this long, then the process exits with one
 * line instead of TypeORM's nine retries over ~25 s (docs/operations.md, "Start-up failures").
 */
export const DATABASE_CONNECT_WINDOW_MS = 5000;
/** Between two attempts within the window. */
export const DATABASE_CONNECT_RETRY_MS = 1000;

/** The database could not be opened; the message is the one-line diagnosis, with no secret in it. */
export class DatabaseConnectError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Errors of the connection itself that a database still starting produces: worth another attempt within the window. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P03']);

interface PgError {
  code?: string;
  message?: string;
  cause?: unknown;
  errors?: unknown[];
}

/** The error's code: Node's (ECONNREFUSED, also on an AggregateError of several addresses) or PostgreSQL's SQLSTATE. */
function codeOf(err: unknown): string | undefined {
  const e = err as PgError | undefined;
  if (!e || typeof e !== 'object') return undefined;
  if (typeof e.code === 'string') return e.code;
  if (/connection timeout|timeout expired/i.test(e.message ?? '')) return 'ETIMEDOUT';
  if (Array.isArray(e.errors) && e.errors.length > 0) return codeOf(e.errors[0]);
  return e.cause ? codeOf(e.cause) : undefined;
}

/** Where DATABASE_URL points, as `host:port` (never its user, password or parameters). */
export function databaseTarget(databaseUrl: string): { where: string; user: string; database: string } {
  try {
    const url = new URL(databaseUrl);
    const socketDir = url.searchParams.get('host');
    const host = url.hostname || socketDir || 'localhost';
    return {
      where: `${host}:${url.port || '5432'}`,
      user: url.username ? `user "${decodeURIComponent(url.username)}"` : 'the default user',
      database: url.pathname.length > 1 ? `database "${decodeURIComponent(url.pathname.slice(1))}"` : 'the default database',
    };
  } catch {
    return { where: 'DATABASE_URL', user: 'the default user', database: 'the database' };
  }
}

/** The one-line diagnosis of a failed connection, or undefined when it is not one this knows (then the error is shown as it is). */
export function describeConnectError(err: unknown, databaseUrl: string): string | undefined {
  const code = codeOf(err);
  const { where, user, database } = databaseTarget(databaseUrl);
  switch (code) {
    case 'ECONNREFUSED':
    case 'ECONNRESET':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach the database at ${where} (${code}): start PostgreSQL or fix DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot find the database host of ${where} (${code}): fix the host in DATABASE_URL`;
    case '57P03':
      return `the database at ${where} is still starting (57P03): wait for it, then start Parley again`;
    case '28P01':
    case '28000':
      return `the database at ${where} refused the login of ${user} (${code}): fix the user or password in DATABASE_URL`;
    case '3D000':
      return `${database} does not exist at ${where} (3D000): create it (createdb) or fix DATABASE_URL`;
    default:
      return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens a PostgreSQL data source: connection errors are retried every DATABASE_CONNECT_RETRY_MS
 * until DATABASE_CONNECT_WINDOW_MS has passed; then, or at once for an error no retry mends (a
 * wrong password, a missing database), a known failure becomes a DatabaseConnectError carrying
 * its one-line diagnosis. Anything else is thrown as it is.
 */
export async function connectPostgres(
  open: () => Promise<DataSource>,
  databaseUrl: string,
  windowMs = DATABASE_CONNECT_WINDOW_MS,
  retryMs = DATABASE_CONNECT_RETRY_MS,
): Promise<DataSource> {
  const deadline = Date.now() + windowMs;
  for (;;) {
    try {
      return await open();
    } catch (err) {
      const code = codeOf(err);
      if (code !== undefined && TRANSIENT.has(code) && Date.now() + retryMs < deadline) {
        await sleep(retryMs);
        continue;
      }
      const diagnosis = describeConnectError(err, databaseUrl);
      throw diagnosis ? new DatabaseConnectError(diagnosis, { cause: err }) : err;
    }
  }
}
