import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { FreshDatabase, freshDatabase } from './support/fresh-database';
import { SpawnedServer, spawnServer } from './support/spawn-server';

const ROOT = path.join(__dirname, '..');

/** `parley <args>` as `npm run cli` run in `cwd` runs it (dist/, INIT_CWD), with no DATABASE_URL, PARLEY_URL or PARLEY_KEY. */
function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DATABASE_URL: _db, PARLEY_URL: _url, PARLEY_KEY: _key, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'dist/cli/main.js'), ...args],
      { cwd, env: { ...inherited, INIT_CWD: cwd, LOG_LEVEL: 'silent' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const PARLEY_YAML = `workspace: default
project: default
prompts:
  - slug: summarize
    kind: prompt
    provider: local
    model: echo
    template:
      - { role: system, content: "Summarize for {{audience}}." }
    variables: { audience: engineers }
    deploy: [production]
`;

/**
 * README's CLI examples against the built server on PostgreSQL, run from the server's directory in
 * a shell where DATABASE_URL is not exported: the CLI finds the server in ./data/server.json and
 * goes through it with the token it left there, instead of refusing and asking for DATABASE_URL.
 */
(process.env.DATABASE_URL ? describe : describe.skip)('the CLI beside a server on PostgreSQL, without DATABASE_URL', () => {
  let db: FreshDatabase;
  let server: SpawnedServer;
  let dir: string;

  beforeAll(async () => {
    db = await freshDatabase({ migrated: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-pg-'));
    // DATA_DIR is ./data, as in the README.
    server = await spawnServer({ ...db.env, DATA_DIR: path.join(dir, 'data') });
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('apply, export and keys go through the server the CLI found; init still refuses the embedded database', async () => {
    fs.writeFileSync(path.join(dir, 'parley.yaml'), PARLEY_YAML);
    const applied = await cli(['apply', '-f', 'parley.yaml'], dir);
    expect(applied.stderr).toMatch(
      new RegExp(`^parley: using the Parley server at ${server.url} \\(it runs on postgres://.*; no DATABASE_URL set\\)\\n$`),
    );
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('prompt summarize v1');

    // It found the server's address and its token valid while it runs (mode 0600, like the data beside it).
    const info = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'server.json'), 'utf8'));
    expect(info).toMatchObject({ url: server.url, adminToken: expect.stringMatching(/^ak_local_/) });
    expect(fs.statSync(path.join(dir, 'data', 'server.json')).mode & 0o777).toBe(0o600);

    const exported = await cli(['export', '--workspace', 'default', '--project', 'default', '-o', 'exported.yaml'], dir);
    expect(exported.code).toBe(0);
    const again = await cli(['apply', '-f', 'exported.yaml', '--json'], dir);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).changed).toBe(false);

    const keys = await cli(['keys', 'list', '--workspace', 'default', '--project', 'default', '--json'], dir);
    expect(keys.code).toBe(0);
    expect(JSON.parse(keys.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ revokedAt: null })]));

    const init = await cli(['init'], dir);
    expect(init.code).toBe(1);
    expect(init.stderr).toContain('is running on postgres://');
    // The embedded database was never opened.
    expect(fs.readdirSync(path.join(dir, 'data'))).toEqual(['server.json']);
  });
});
