import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { ApiKeysService } from '../src/auth/api-keys.service';
import { runApply } from '../src/cli/commands/apply.command';
import { runExport } from '../src/cli/commands/export.command';
import { describeFailure } from '../src/cli/main';
import { lockDataDir } from '../src/database/data-dir-lock';
import { generateServerToken, writeServerInfo } from '../src/database/server-info';
import { uniqueSlug } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const ROOT = path.join(__dirname, '..');
/** A CLI process on the built sources (npm test builds them first when stale, scripts/test.js). */
const SPAWN_TIMEOUT = 120_000;

const yamlFor = (workspace: string, content = 'Hello {{name}}') => `workspace: ${workspace}
project: cli
prompts:
  - slug: greet
    model: echo
    template:
      - { role: system, content: "${content}" }
    deploy: [production]
`;

/** `parley <args>` in a child process, as `npm run cli` runs it (dist/), with its own environment. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DATABASE_URL: _db, PARLEY_URL: _url, PARLEY_KEY: _key, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'dist/cli/main.js'), ...args],
      { cwd: ROOT, env: { ...inherited, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('parley apply / export from the command line', () => {
  let t: TestApp;
  let url: string;
  let tmp: string;

  beforeAll(async () => {
    t = await createTestApp();
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('applies and exports through a server with --url and --key', async () => {
    const ws = uniqueSlug('ws');
    const first = await runApply(yamlFor(ws), { url, key: TEST_ADMIN_KEY });
    expect(first.changed).toBe(true);
    expect((await runApply(yamlFor(ws), { url: `${url}/`, key: TEST_ADMIN_KEY })).changed).toBe(false);
    const exported = await runExport(ws, 'cli', { url, key: TEST_ADMIN_KEY });
    expect(exported).toMatch(/slug: greet/);
    expect((await runApply(exported, { url, key: TEST_ADMIN_KEY })).changed).toBe(false);

    const wrongKey = await runApply(yamlFor(ws), { url, key: 'nope' }).catch((e) => e);
    expect(describeFailure(wrongKey)).toBe('Unauthorized: Invalid API key');
    const badReference = await runApply(yamlFor(ws).replace('[production]', '[canary]'), { url, key: TEST_ADMIN_KEY }).catch((e) => e);
    expect(describeFailure(badReference)).toMatch(
      /^Invalid apply file\n {2}- prompts\[0\]\.deploy\[0\] \(line 8\): no environment "canary"/,
    );
    // A file with a mistake of its own and a reference the server refutes: both in one report.
    const both = await runApply(yamlFor(ws).replace('[production]', '[canary]').replace('model: echo', 'model: ""'), {
      url,
      key: TEST_ADMIN_KEY,
    }).catch((e) => e);
    expect(describeFailure(both)).toMatch(
      /^Invalid apply file\n {2}- prompts\[0\]\.model \(line 5\): .*\n {2}- prompts\[0\]\.deploy\[0\] \(line 8\): no environment "canary"/,
    );
    // With no server to ask, the file's own mistakes are still the report.
    const offline = await runApply(yamlFor(ws).replace('model: echo', 'model: ""'), { url: 'http://127.0.0.1:9', key: 'k' }).catch(
      (e) => e,
    );
    expect(describeFailure(offline)).toMatch(/^Invalid apply file\n {2}- prompts\[0\]\.model \(line 5\): /);
    // A file that names no valid workspace and project is refused before any connection.
    const invalid = await runApply('workspace: x\n', { url: 'http://127.0.0.1:9', key: 'k' }).catch((e) => e);
    expect(describeFailure(invalid)).toMatch(/^Invalid apply file\n {2}- project \(line 1\): Required/);
    await expect(runApply(yamlFor(ws), { url: 'http://127.0.0.1:9', key: 'k' })).rejects.toThrow(
      /Cannot reach the Parley server at http:\/\/127\.0\.0\.1:9/,
    );
  });

  it(
    'refuses cleanly when another process holds DATA_DIR and no server can be reached',
    async () => {
      const dataDir = path.join(tmp, 'held');
      const release = await lockDataDir(dataDir);
      try {
        const before = fs.readdirSync(dataDir).sort();
        fs.writeFileSync(path.join(tmp, 'held.yaml'), yamlFor(uniqueSlug('ws')));
        const res = await cli(['apply', '-f', path.join(tmp, 'held.yaml')], { DATA_DIR: dataDir });
        expect(res.code).toBe(1);
        expect(res.stderr).toMatch(/^parley: The embedded database in .*held is in use by another Parley process/);
        expect(res.stdout).toBe('');
        // Nothing was opened or written: no pgdata, no secret key, the lock as it was.
        expect(fs.readdirSync(dataDir).sort()).toEqual(before);
      } finally {
        await release();
      }
    },
    SPAWN_TIMEOUT,
  );

  it(
    'refuses the embedded database when a server started from this DATA_DIR runs on PostgreSQL, and names it',
    async () => {
      const dataDir = path.join(tmp, 'postgres-server');
      // What a server on PostgreSQL leaves in DATA_DIR (src/main.ts); this test process stands in for it.
      writeServerInfo(dataDir, { url: 'http://127.0.0.1:3999', pid: process.pid, database: 'postgres://postgres@db.example:5432/parley' });
      fs.writeFileSync(path.join(tmp, 'pg.yaml'), yamlFor(uniqueSlug('ws')));
      for (const args of [['apply', '-f', path.join(tmp, 'pg.yaml')], ['init']]) {
        const res = await cli(args, { DATA_DIR: dataDir });
        expect({ args, code: res.code }).toEqual({ args, code: 1 });
        expect(res.stderr).toBe(
          `parley: A Parley server (pid ${process.pid}, http://127.0.0.1:3999) is running on postgres://postgres@db.example:5432/parley, ` +
            `not on the embedded database in ${dataDir} that this command would change. Set DATABASE_URL to the server's database ` +
            '(or use --url and --key) and run it again; to work on the embedded database, stop that server or choose another DATA_DIR.\n',
        );
      }
      // Nothing was opened or written.
      expect(fs.readdirSync(dataDir)).toEqual(['server.json']);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'without DATABASE_URL, goes through a server on PostgreSQL that left its token in server.json (the README examples)',
    async () => {
      const dataDir = path.join(tmp, 'postgres-served');
      // What a server on PostgreSQL leaves in DATA_DIR (src/main.ts); the test app stands in for it.
      const adminToken = generateServerToken();
      t.app.get(ApiKeysService).registerEphemeralAdminKey(adminToken);
      const database = 'postgres://postgres@db.example:5432/parley';
      writeServerInfo(dataDir, { url, pid: process.pid, adminToken, database });
      const ws = uniqueSlug('ws');
      const file = path.join(tmp, 'pg-served.yaml');
      fs.writeFileSync(file, yamlFor(ws));
      const applied = await cli(['apply', '-f', file, '--json'], { DATA_DIR: dataDir });
      expect(applied.stderr).toBe(`parley: using the Parley server at ${url} (it runs on ${database}; no DATABASE_URL set)\n`);
      expect(applied.code).toBe(0);
      expect(JSON.parse(applied.stdout)).toMatchObject({ workspace: { slug: ws, action: 'created' }, changed: true });
      const exported = await cli(['export', '--workspace', ws, '--project', 'cli'], { DATA_DIR: dataDir });
      expect(exported.code).toBe(0);
      expect(exported.stdout).toMatch(/slug: greet/);
      const keys = await cli(['keys', 'list', '--workspace', ws, '--project', 'cli', '--json'], { DATA_DIR: dataDir });
      expect(keys.code).toBe(0);
      expect(JSON.parse(keys.stdout)).toEqual([]);
      // init still works on a database and refuses the embedded one this server does not use.
      const init = await cli(['init'], { DATA_DIR: dataDir });
      expect(init.code).toBe(1);
      expect(init.stderr).toMatch(
        /^parley: A Parley server .* is running on postgres:\/\/postgres@db\.example:5432\/parley, not on the embedded/,
      );
      // Nothing was opened or written in DATA_DIR.
      expect(fs.readdirSync(dataDir)).toEqual(['server.json']);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'an unreachable DATABASE_URL is one line naming it and the fix, without the password or a stack trace',
    async () => {
      const server = createServer();
      const port = await new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
      );
      await new Promise((resolve) => server.close(resolve));
      const started = Date.now();
      const res = await cli(['keys', 'list', '--workspace', 'w', '--project', 'p'], {
        DATABASE_URL: `postgres://parley:s3cret-pw@127.0.0.1:${port}/parley`,
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `parley: using PostgreSQL at postgres://parley@127.0.0.1:${port}/parley (DATABASE_URL)\n` +
          `parley: cannot reach the database at 127.0.0.1:${port} (ECONNREFUSED): start PostgreSQL or fix DATABASE_URL\n`,
      );
      // The short retry (docs/operations.md, "Start-up failures"), not TypeORM's nine attempts 3 s apart.
      expect(Date.now() - started).toBeLessThan(20_000);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'goes through the server holding DATA_DIR, with the token it left in server.json',
    async () => {
      const dataDir = path.join(tmp, 'served');
      const release = await lockDataDir(dataDir);
      const adminToken = generateServerToken();
      t.app.get(ApiKeysService).registerEphemeralAdminKey(adminToken);
      writeServerInfo(dataDir, { url, pid: process.pid, adminToken, database: 'embedded' });
      expect(fs.statSync(path.join(dataDir, 'server.json')).mode & 0o777).toBe(0o600);
      try {
        const ws = uniqueSlug('ws');
        const file = path.join(tmp, 'served.yaml');
        fs.writeFileSync(file, yamlFor(ws));
        const applied = await cli(['apply', '-f', file, '--json'], { DATA_DIR: dataDir });
        // The command names what it changed, on stderr (stdout stays the JSON).
        expect(applied.stderr).toBe(`parley: using the Parley server at ${url} (it holds the embedded database in ${dataDir})\n`);
        expect(applied.code).toBe(0);
        expect(JSON.parse(applied.stdout)).toMatchObject({
          workspace: { slug: ws, action: 'created' },
          prompts: [{ slug: 'greet', action: 'created', version: 1 }],
          changed: true,
        });

        fs.writeFileSync(file, yamlFor(ws, 'Hi {{name}}!'));
        const human = await cli(['apply', '-f', file], { DATA_DIR: dataDir });
        expect(human.stdout).toBe(
          `Applied to ${ws}/cli:\n  ~ prompt greet v2 (content changed: new version)\n  > greet v2 deployed to production (deployment 2)\n`,
        );
        fs.writeFileSync(file, yamlFor(ws).replace('model: echo', 'model: echo\n    temprature: 1'));
        const invalid = await cli(['apply', '-f', file, '--json'], { DATA_DIR: dataDir });
        expect(invalid.code).toBe(1);
        expect(invalid.stderr).toMatch(
          /^parley: using the Parley server at .*\nparley: Invalid apply file\n {2}- prompts\[0\] \(line 4\): Unrecognized key: "temprature"/,
        );
        expect(JSON.parse(invalid.stdout).error.details).toHaveLength(1);
        expect(fs.readdirSync(dataDir)).not.toContain('pgdata');
      } finally {
        await release();
      }
    },
    SPAWN_TIMEOUT,
  );
});
