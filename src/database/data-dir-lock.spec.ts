import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { transformFileSync } from '@swc/core';

import { DataDirLockedError, isDataDirLocked, lockDataDir, removeDeadLock } from './data-dir-lock';
import { currentOwner, LockOwner } from './lock-owner';

/** The pid of a process that has exited and been reaped. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim());
}

let dir: string;
const lockDir = () => path.join(dir, 'parley.lock');
const ownerOf = (): LockOwner => JSON.parse(fs.readFileSync(path.join(lockDir(), 'owner.json'), 'utf8'));

/** A lock left in DATA_DIR as another process would leave it, last touched `ageMs` ago. */
function leaveLock(owner: Partial<LockOwner> | undefined, ageMs = 0): void {
  fs.mkdirSync(lockDir());
  if (owner) fs.writeFileSync(path.join(lockDir(), 'owner.json'), JSON.stringify({ ...currentOwner(), token: 'left-behind', ...owner }));
  const touched = new Date(Date.now() - ageMs);
  fs.utimesSync(lockDir(), touched, touched);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lock-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const linux = process.platform === 'linux';

describe('the DATA_DIR lock', () => {
  it('is taken once, refused to a second taker while held, and free again once released', async () => {
    const release = await lockDataDir(dir);
    expect(ownerOf()).toMatchObject({ pid: process.pid, host: os.hostname() });
    await expect(lockDataDir(dir)).rejects.toBeInstanceOf(DataDirLockedError);
    expect(await isDataDirLocked(dir)).toBe(true);
    await release();
    expect(await isDataDirLocked(dir)).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
    await (
      await lockDataDir(dir)
    )();
  });

  (linux ? it : it.skip)('is taken over at once when its owner is known dead: killed on this host, or its pid reused', async () => {
    for (const owner of [{ pid: deadPid() }, { pid: process.pid, started: '1' }]) {
      leaveLock(owner);
      expect(await isDataDirLocked(dir)).toBe(false);
      const started = Date.now();
      const release = await lockDataDir(dir);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(ownerOf()).toMatchObject({ pid: process.pid, token: expect.not.stringMatching('left-behind') });
      expect(fs.readdirSync(dir)).toEqual(['parley.lock']); // no lock moved aside left over, no takeover lock
      await release();
    }
  });

  it('is never taken over from a live owner, however long since it touched the lock', async () => {
    leaveLock({}, 60_000); // this very process, under another token: alive
    await expect(lockDataDir(dir)).rejects.toBeInstanceOf(DataDirLockedError);
    expect(await isDataDirLocked(dir)).toBe(true);
    expect(ownerOf().token).toBe('left-behind');
  });

  it('waits out the 15 s staleness when the owner is not known: another host, or no owner record (an older Parley)', async () => {
    for (const owner of [{ pid: deadPid(), host: 'elsewhere' }, undefined]) {
      leaveLock(owner, 5_000);
      await expect(lockDataDir(dir)).rejects.toBeInstanceOf(DataDirLockedError);
      expect(await isDataDirLocked(dir)).toBe(true);
      fs.rmSync(lockDir(), { recursive: true });
      leaveLock(owner, 16_000);
      expect(await isDataDirLocked(dir)).toBe(false);
      await (
        await lockDataDir(dir)
      )();
    }
  });

  (linux ? it : it.skip)('is not removed by a starter that judged it dead after another starter took it over', async () => {
    leaveLock({ pid: deadPid() });
    const release = await lockDataDir(dir); // the first starter
    const token = ownerOf().token;
    expect(await removeDeadLock(lockDir())).toBe(false); // the second, late: it judges again under the takeover lock
    expect(ownerOf().token).toBe(token);
    await release();
  });

  (linux ? it : it.skip)('waits for a takeover in progress, and clears a takeover lock left by a process that died in one', async () => {
    leaveLock({ pid: deadPid() });
    fs.mkdirSync(`${lockDir()}.takeover`);
    setTimeout(() => fs.rmdirSync(`${lockDir()}.takeover`), 200);
    const started = Date.now();
    await (
      await lockDataDir(dir)
    )();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);

    leaveLock({ pid: deadPid() });
    fs.mkdirSync(`${lockDir()}.takeover`);
    const old = new Date(Date.now() - 10_000);
    fs.utimesSync(`${lockDir()}.takeover`, old, old);
    await (
      await lockDataDir(dir)
    )();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('is touched every 5 s by its holder, which stops when another process has taken it', async () => {
    jest.useFakeTimers({ doNotFake: ['Date'] });
    try {
      const release = await lockDataDir(dir);
      const old = new Date(Date.now() - 10_000);
      fs.utimesSync(lockDir(), old, old);
      jest.advanceTimersByTime(5_000);
      expect(Date.now() - fs.statSync(lockDir()).mtimeMs).toBeLessThan(2_000);
      fs.writeFileSync(path.join(lockDir(), 'owner.json'), JSON.stringify({ ...currentOwner(), token: 'another' }));
      expect(() => jest.advanceTimersByTime(5_000)).toThrow(/taken by another process/);
      await release(); // not its lock any more: left alone
      expect(ownerOf().token).toBe('another');
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('the DATA_DIR lock, raced by several processes', () => {
  /** This module and lock-owner.ts as plain JavaScript, for node processes of their own. */
  function compiledModule(): string {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lock-js-'));
    for (const name of ['data-dir-lock', 'lock-owner']) {
      const { code } = transformFileSync(path.join(__dirname, `${name}.ts`), {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
        swcrc: false,
      });
      fs.writeFileSync(path.join(out, `${name}.js`), code);
    }
    return path.join(out, 'data-dir-lock.js');
  }

  // Each process waits for the same instant, then takes the lock; a winner holds it until told to exit.
  const STARTER = `
    const { lockDataDir } = require(process.argv[1]);
    while (Date.now() < Number(process.argv[3]));
    lockDataDir(process.argv[2]).then(
      () => { console.log('acquired'); process.stdin.on('end', () => process.exit(0)).resume(); },
      (err) => { console.log(err.constructor.name); process.exit(0); });`;

  (linux ? it : it.skip)(
    'lets exactly one of several starters that find the same dead owner take it over',
    async () => {
      const module = compiledModule();
      try {
        for (let round = 0; round < 3; round++) {
          leaveLock({ pid: deadPid() });
          const startAt = Date.now() + 400;
          const starters = Array.from({ length: 4 }, () => spawn(process.execPath, ['-e', STARTER, module, dir, String(startAt)]));
          const outcomes = await Promise.all(
            starters.map((p) => new Promise<string>((resolve) => p.stdout.once('data', (chunk) => resolve(String(chunk).trim())))),
          );
          expect([...outcomes].sort()).toEqual(['DataDirLockedError', 'DataDirLockedError', 'DataDirLockedError', 'acquired']);
          expect(ownerOf().pid).toBe(starters[outcomes.indexOf('acquired')].pid);
          const exited = starters.map((p) => new Promise((resolve) => (p.exitCode !== null ? resolve(null) : p.once('exit', resolve))));
          for (const p of starters) p.stdin.end();
          await Promise.all(exited);
          expect(fs.readdirSync(dir)).toEqual([]); // the winner released it on exit; nothing else left behind
        }
      } finally {
        fs.rmSync(path.dirname(module), { recursive: true, force: true });
      }
    },
    30_000,
  );
});
