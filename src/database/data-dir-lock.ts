import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { currentOwner, LockOwner, ownerLiveness, parseLockOwner } from './lock-owner';

/** PGlite must never be opened by two processes: that corrupts it (DESIGN.md §2). */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `The embedded database in ${dataDir} is in use by another Parley process (a running server?). ` +
        'Stop it first, or use the command against the server with --url and --key.',
    );
  }
}

/*
 * The DATA_DIR lock (docs/architecture.md, "The DATA_DIR lock"): the directory DATA_DIR/parley.lock,
 * made with mkdir (atomic), holding owner.json (who holds it). Its holder touches it every 5 s. A lock
 * whose owner is known dead (this host, boot and pid namespace; src/database/lock-owner.ts) is taken
 * over at once; one whose owner is unknown once it has not been touched for 15 s. Taking over goes
 * through a second lock, DATA_DIR/parley.lock.takeover, so two starters never both take it over.
 */
export const STALE_MS = 15_000;
const REFRESH_MS = 5_000;
/** A takeover lasts milliseconds: a takeover lock this old was left by a process that died in one. */
const TAKEOVER_STALE_MS = 5_000;
const TAKEOVER_WAIT_MS = 2_000;

const lockPath = (dataDir: string) => path.join(dataDir, 'parley.lock');
const ownerPath = (lockDir: string) => path.join(lockDir, 'owner.json');
const takeoverPath = (lockDir: string) => `${lockDir}.takeover`;
const errorCode = (err: unknown) => (err as { code?: string }).code;

interface LockState {
  /** Missing while its taker has yet to write it, and in a lock left by an older Parley. */
  owner?: LockOwner;
  mtimeMs: number;
}

export type LockVerdict = 'held' | 'dead' | 'stale';

function readLock(lockDir: string): LockState | undefined {
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(lockDir).mtimeMs;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  let owner: LockOwner | undefined;
  try {
    owner = parseLockOwner(fs.readFileSync(ownerPath(lockDir), 'utf8'));
  } catch {
    owner = undefined;
  }
  return { owner, mtimeMs };
}

/** `held` unless its owner is known dead (`dead`) or, owner unknown, it is 15 s old (`stale`). */
export function judgeLock(lock: LockState, now = Date.now()): LockVerdict {
  const liveness = lock.owner ? ownerLiveness(lock.owner) : 'unknown';
  if (liveness === 'alive') return 'held';
  if (liveness === 'dead') return 'dead';
  return now - lock.mtimeMs > STALE_MS ? 'stale' : 'held';
}

/** mkdir, then owner.json written beside and renamed in: a reader sees no owner or all of it. */
function tryCreate(lockDir: string, owner: LockOwner): boolean {
  try {
    fs.mkdirSync(lockDir);
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  }
  const temporary = path.join(lockDir, `owner.json.${owner.token}.tmp`);
  fs.writeFileSync(temporary, JSON.stringify(owner));
  fs.renameSync(temporary, ownerPath(lockDir));
  return true;
}

/** Moves the lock aside (atomic: no one sees half a lock); returns where, or undefined if it was gone. */
function moveAside(lockDir: string, reason: string): string | undefined {
  const grave = `${lockDir}.${reason}-${randomBytes(6).toString('hex')}`;
  try {
    fs.renameSync(lockDir, grave);
    return grave;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The takeover lock: false when another process holds it for longer than TAKEOVER_WAIT_MS. */
async function takeTakeoverLock(lockDir: string): Promise<boolean> {
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(takeoverPath(lockDir));
      return true;
    } catch (err) {
      if (errorCode(err) !== 'EEXIST') throw err;
    }
    try {
      if (Date.now() - fs.statSync(takeoverPath(lockDir)).mtimeMs > TAKEOVER_STALE_MS) {
        fs.rmdirSync(takeoverPath(lockDir));
        continue;
      }
    } catch (err) {
      if (errorCode(err) === 'ENOENT') continue;
      throw err;
    }
    if (Date.now() > deadline) return false;
    await sleep(5 + Math.random() * 20);
  }
}

/**
 * Removes the lock if, judged again under the takeover lock, it is dead or stale. Whatever it finds
 * is what it removes: only a taker holding the takeover lock removes a lock that is not its own, and
 * a dead owner cannot release, so between the judging and the removal the lock cannot change.
 * Returns whether it removed one. Exported for its spec.
 */
export async function removeDeadLock(lockDir: string): Promise<boolean> {
  if (!(await takeTakeoverLock(lockDir))) return false;
  try {
    const lock = readLock(lockDir);
    if (!lock) return false;
    const verdict = judgeLock(lock);
    if (verdict === 'held') return false;
    const grave = moveAside(lockDir, verdict);
    if (!grave) return false;
    // What was moved must be what was judged (it always is while takers keep to the takeover lock):
    // if not, it goes back and this start fails rather than open a database another process holds.
    if (readLock(grave)?.owner?.token !== lock.owner?.token) {
      fs.renameSync(grave, lockDir);
      throw new Error(`The DATA_DIR lock ${lockDir} changed while it was taken over: start again`);
    }
    fs.rmSync(grave, { recursive: true, force: true });
    return true;
  } finally {
    fs.rmSync(takeoverPath(lockDir), { recursive: true, force: true });
  }
}

/**
 * Takes the DATA_DIR lock for this process, taking over one whose owner is known dead at once and
 * one whose owner is unknown once stale (15 s). Returns the release function; the lock also goes
 * when the process exits.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockDir = lockPath(dataDir);
  const owner = currentOwner();
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(lockDir, owner)) return hold(lockDir, owner);
    const lock = readLock(lockDir);
    if (lock && judgeLock(lock) === 'held') break;
    if (lock) await removeDeadLock(lockDir);
  }
  throw new DataDirLockedError(dataDir);
}

function hold(lockDir: string, owner: LockOwner): () => Promise<void> {
  const ours = () => readLock(lockDir)?.owner?.token === owner.token;
  const release = () => {
    clearInterval(refresh);
    process.off('exit', release);
    const grave = ours() ? moveAside(lockDir, 'released') : undefined;
    if (grave) fs.rmSync(grave, { recursive: true, force: true });
  };
  // Touched so that a process that cannot tell whether this one lives still sees it held.
  const refresh = setInterval(() => {
    const lock = readLock(lockDir);
    if (!lock || (lock.owner && lock.owner.token !== owner.token)) {
      clearInterval(refresh);
      throw new Error(`The DATA_DIR lock ${lockDir} was taken by another process while this one held it`);
    }
    const now = new Date();
    try {
      fs.utimesSync(lockDir, now, now);
    } catch {
      // gone meanwhile: the next round says so
    }
  }, REFRESH_MS);
  refresh.unref();
  process.on('exit', release);
  return async () => release();
}

export async function isDataDirLocked(dataDir: string): Promise<boolean> {
  if (!fs.existsSync(dataDir)) return false;
  const lock = readLock(lockPath(dataDir));
  return lock !== undefined && judgeLock(lock) === 'held';
}

/** Where a running server says how to reach it, so a CLI finding the lock can use its REST API. */
export const serverInfoPath = (dataDir: string) => path.join(dataDir, 'server.json');
