import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { currentOwner, ownerLiveness, parseLockOwner } from './lock-owner';

/** The pid of a process that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

const linux = process.platform === 'linux';

describe('lock owner liveness', () => {
  const self = currentOwner();

  (linux ? it : it.skip)('knows this process by host, boot, pid namespace and start time (Linux)', () => {
    expect(self).toMatchObject({
      pid: process.pid,
      boot: expect.any(String),
      pidNamespace: expect.stringMatching(/^pid:\[\d+\]$/),
      started: expect.stringMatching(/^\d+$/),
    });
    expect(self.token).not.toBe(currentOwner().token);
    expect(ownerLiveness(self)).toBe('alive');
  });

  (linux ? it : it.skip)('is dead when the pid is gone, or belongs to a process started later (a reused pid)', () => {
    expect(ownerLiveness({ ...self, pid: deadPid() })).toBe('dead');
    expect(ownerLiveness({ ...self, started: String(Number(self.started) - 1) })).toBe('dead');
  });

  (linux ? it : it.skip)('is dead when the process is a zombie (killed, not yet reaped by its parent)', async () => {
    // perl (Debian's essential perl-base) never reaps a child it does not wait for. A shell may reap
    // its background job before an `exec`: that made this test fail once in CI.
    const parent = spawn('perl', ['-e', '$| = 1; my $pid = fork(); exit 0 unless $pid; print "$pid\n"; sleep 5']);
    const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
    try {
      for (let i = 0; i < 100 && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 20));
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /);
      expect(ownerLiveness({ ...self, pid, started: undefined })).toBe('dead');
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('is unknown on another host, boot or pid namespace, or without /proc to tell, however dead the pid', () => {
    const pid = deadPid();
    expect(ownerLiveness({ ...self, pid, host: 'elsewhere' })).toBe('unknown');
    expect(ownerLiveness({ ...self, pid, boot: 'another-boot' })).toBe('unknown');
    expect(ownerLiveness({ ...self, pid, pidNamespace: 'pid:[1]' })).toBe('unknown');
    expect(ownerLiveness({ ...self, pid, boot: undefined })).toBe('unknown');
    expect(ownerLiveness({ ...self, pid }, { ...self, boot: undefined, pidNamespace: undefined })).toBe('unknown');
  });

  it('reads an owner record only when it names pid, host and token', () => {
    expect(parseLockOwner(JSON.stringify(self))).toEqual(self);
    expect(parseLockOwner('{"pid":1,"host":"h"}')).toBeUndefined();
    expect(parseLockOwner('{"pid":')).toBeUndefined();
  });
});
