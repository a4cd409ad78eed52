import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';

/** PGlite must never be opened by two processes: that corrupts it (DESIGN.md §2). */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `The embedded database in ${dataDir} is in use by another Parley process (a running server?). ` +
        'Stop it first, or use the command against the server with --url and --key.',
    );
  }
}

const LOCK_OPTIONS = { stale: 15_000, update: 5_000, realpath: false } as const;
const lockPath = (dataDir: string) => path.join(dataDir, 'parley.lock');

/**
 * Takes the DATA_DIR lock for this process. A lock left behind by a crashed process is stale after
 * 15 s and taken over. Returns the release function; the lock also goes when the process exits.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    return await lockfile.lock(dataDir, { ...LOCK_OPTIONS, lockfilePath: lockPath(dataDir), retries: 0 });
  } catch (err) {
    if ((err as { code?: string }).code === 'ELOCKED') throw new DataDirLockedError(dataDir);
    throw err;
  }
}

export async function isDataDirLocked(dataDir: string): Promise<boolean> {
  if (!fs.existsSync(dataDir)) return false;
  return lockfile.check(dataDir, { ...LOCK_OPTIONS, lockfilePath: lockPath(dataDir) });
}

/** Where a running server says how to reach it, so a CLI finding the lock can use its REST API. */
export const serverInfoPath = (dataDir: string) => path.join(dataDir, 'server.json');
