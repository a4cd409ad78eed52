import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { serverInfoPath } from './data-dir-lock';

/**
 * DATA_DIR/server.json: how a CLI that finds DATA_DIR locked reaches the server holding it.
 * `adminToken` is an admin key valid only while that server process runs (never stored in the
 * database); the file is readable by its owner only (0600), like the data it sits next to.
 */
export interface ServerInfo {
  url: string;
  pid: number;
  adminToken: string;
}

export function generateServerToken(): string {
  return 'ak_local_' + randomBytes(24).toString('base64url');
}

/** Written to a temporary file and renamed, so a reader never sees half a file and the mode is 0600 from the start. */
export function writeServerInfo(dataDir: string, info: ServerInfo): void {
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
    if (typeof parsed.url !== 'string' || typeof parsed.adminToken !== 'string') return null;
    return { url: parsed.url, pid: Number(parsed.pid), adminToken: parsed.adminToken };
  } catch {
    return null;
  }
}
