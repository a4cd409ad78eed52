import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

import { serverInfoPath } from './data-dir-lock';

/**
 * DATA_DIR/server.json: which database a running server uses, and how a CLI reaches it.
 * Every server writes `adminToken`, an admin key valid only while that process runs (never stored
 * in the database). A server on the embedded database holds DATA_DIR, so a CLI that finds DATA_DIR
 * locked goes through it. A server on PostgreSQL also writes `database` (its DATABASE_URL without
 * the password): a CLI run without DATABASE_URL goes through it too (apply, export, keys, import,
 * eval), and one that would open the embedded database in this DATA_DIR, which that server does not
 * use (init, migrate), refuses instead (docs/operations.md, "Running several instances"). The file
 * is readable by its owner only (0600), like the data it sits next to.
 */
export interface ServerInfo {
  url: string;
  pid: number;
  /** The server's ephemeral admin key; absent in the file of a server older than this. */
  adminToken?: string;
  /** `embedded`, or the PostgreSQL URL without its password. */
  database: string;
}

export const EMBEDDED_DATABASE = 'embedded';

/** A PostgreSQL URL as it may be printed or written down: no password. */
export function describeDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'PostgreSQL (DATABASE_URL is not a URL)';
  }
}

/** Whether the process that wrote a server.json still runs (a killed server leaves its file behind). */
export function isServerRunning(info: ServerInfo): boolean {
  if (!Number.isInteger(info.pid) || info.pid <= 0) return false;
  try {
    process.kill(info.pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as { code?: string }).code === 'EPERM';
  }
}

export function generateServerToken(): string {
  return 'ak_local_' + randomBytes(24).toString('base64url');
}

/** Written to a temporary file and renamed, so a reader never sees half a file and the mode is 0600 from the start. */
export function writeServerInfo(dataDir: string, info: ServerInfo): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const target = serverInfoPath(dataDir);
  const temporary = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(info), { mode: 0o600 });
  fs.renameSync(temporary, target);
  // A token left behind is useless (it dies with the process), but tidy up on a normal exit.
  process.once('exit', () => {
    try {
      if (readServerInfo(dataDir)?.pid === process.pid) fs.unlinkSync(target);
    } catch {
      // best effort
    }
  });
}

export function readServerInfo(dataDir: string): ServerInfo | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(serverInfoPath(dataDir), 'utf8')) as Partial<ServerInfo>;
    if (typeof parsed.url !== 'string') return null;
    const database = typeof parsed.database === 'string' ? parsed.database : EMBEDDED_DATABASE;
    return {
      url: parsed.url,
      pid: Number(parsed.pid),
      database,
      ...(typeof parsed.adminToken === 'string' ? { adminToken: parsed.adminToken } : {}),
    };
  } catch {
    return null;
  }
}
