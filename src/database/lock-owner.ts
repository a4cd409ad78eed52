import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';

/**
 * Who holds the DATA_DIR lock, as written in `DATA_DIR/parley.lock/owner.json`, and whether that
 * process is known to be dead (docs/architecture.md, "The DATA_DIR lock").
 */
export interface LockOwner {
  pid: number;
  host: string;
  /** The running kernel's boot id (Linux): a pid means something only within one boot. */
  boot?: string;
  /** The pid namespace (Linux): a pid means something only within one namespace (one container). */
  pidNamespace?: string;
  /** The process's start time in clock ticks since boot (Linux): tells a reused pid from the owner. */
  started?: string;
  /** Unique to one taking of the lock: tells this lock from one taken later by another process. */
  token: string;
}

/**
 * `alive` and `dead` are certain; `unknown` (another host, another container, another boot, or a
 * system without /proc) leaves the lock to the staleness rule (its age).
 */
export type OwnerLiveness = 'alive' | 'dead' | 'unknown';

function readOptional(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** State and start time from /proc/<pid>/stat (fields 3 and 22; the command name may hold spaces). */
function processStat(pid: number): { state: string; started: string } | undefined {
  const stat = readOptional(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.length > 19 ? { state: fields[0], started: fields[19] } : undefined;
}

function pidNamespace(): string | undefined {
  try {
    return fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

export function currentOwner(): LockOwner {
  return {
    pid: process.pid,
    host: os.hostname(),
    boot: readOptional('/proc/sys/kernel/random/boot_id'),
    pidNamespace: pidNamespace(),
    started: processStat(process.pid)?.started,
    token: randomBytes(12).toString('hex'),
  };
}

/** Whether a process with this pid exists (a zombie counts: it is checked apart). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'; // it runs, as another user
  }
}

/**
 * Certain only on the same host, boot and pid namespace as this process (with /proc to tell):
 * then the owner is dead when its pid is gone, a zombie, or a newer process that reuses the pid.
 */
export function ownerLiveness(owner: LockOwner, self: LockOwner = currentOwner()): OwnerLiveness {
  const comparable =
    self.boot !== undefined &&
    self.pidNamespace !== undefined &&
    owner.host === self.host &&
    owner.boot === self.boot &&
    owner.pidNamespace === self.pidNamespace;
  if (!comparable || !Number.isInteger(owner.pid) || owner.pid <= 0) return 'unknown';
  if (!pidExists(owner.pid)) return 'dead';
  const stat = processStat(owner.pid);
  if (stat && (stat.state === 'Z' || stat.state === 'X')) return 'dead';
  if (stat && owner.started !== undefined && stat.started !== owner.started) return 'dead';
  return 'alive';
}

export function parseLockOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string' || typeof owner.token !== 'string') return undefined;
    return owner as LockOwner;
  } catch {
    return undefined;
  }
}
