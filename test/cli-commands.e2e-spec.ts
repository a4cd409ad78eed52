import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { buildProgram } from '../src/cli/main';
import { createProject, TestProject } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** `parley <args>` in this process against a running server; what it printed to stdout and stderr. */
async function parley(...args: string[]): Promise<{ stdout: string; stderr: string; error?: unknown }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = jest.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0);
  try {
    await buildProgram()
      .configureOutput({ writeOut: (s) => out.push(s), writeErr: (s) => err.push(s) })
      .parseAsync(['node', 'parley', ...args]);
    return { stdout: out.join('\n'), stderr: err.join('\n') };
  } catch (e) {
    return { stdout: out.join('\n'), stderr: err.join('\n'), error: e };
  } finally {
    log.mockRestore();
    error.mockRestore();
    write.mockRestore();
  }
}

describe('parley CLI: --version, keys, export -o, apply warnings (through a server)', () => {
  let t: TestApp;
  let url: string;
  let p: TestProject;
  let tmp: string;

  beforeAll(async () => {
    t = await createTestApp({ PROVIDER_KEY_BINDINGS: 'PARLEY_PROVIDER_DX_TEST_UNSET_KEY=api.example.com' });
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    p = await createProject(t);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("--version prints package.json's version", async () => {
    const { stdout } = await parley('--version');
    expect(stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version);
  });

  it('keys create, list and revoke go through --url with the admin key', async () => {
    const where = ['--workspace', p.workspace, '--project', p.project, '--url', url, '--key', TEST_ADMIN_KEY, '--json'];
    const created = JSON.parse((await parley('keys', 'create', '--name', 'ci', ...where)).stdout);
    expect(created).toMatchObject({ workspace: p.workspace, project: p.project, key: expect.stringMatching(/^pk_/) });
    await t.http().get('/v2/threads').set('X-API-Key', created.key).expect(200);

    const listed = JSON.parse((await parley('keys', 'list', ...where)).stdout) as { id: string; name: string; revokedAt: string | null }[];
    expect(listed.map((k) => k.name).sort()).toEqual(['ci', 'test']);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    expect(JSON.parse((await parley('keys', 'revoke', created.id, ...where)).stdout)).toMatchObject({ id: created.id, revoked: true });
    const after = JSON.parse((await parley('keys', 'list', ...where)).stdout) as { id: string; revokedAt: string | null }[];
    expect(after.find((k) => k.id === created.id)!.revokedAt).not.toBeNull();

    // A project key (keys:manage) lists its own project's keys; another project's are not found.
    const own = JSON.parse(
      (await parley('keys', 'list', '--workspace', p.workspace, '--project', p.project, '--url', url, '--key', p.key, '--json')).stdout,
    ) as { id: string }[];
    expect(own.map((k) => k.id)).toEqual(listed.map((k) => k.id));
    const other = await createProject(t);
    const refused = await parley('keys', 'list', '--workspace', other.workspace, '--project', other.project, '--url', url, '--key', p.key);
    expect(String((refused.error as Error).message)).toMatch(/not found/i);
  });

  it('keys create --preset app makes a key that invokes and keeps threads but cannot read logs', async () => {
    const where = ['--workspace', p.workspace, '--project', p.project, '--url', url, '--key', TEST_ADMIN_KEY, '--json'];
    const created = JSON.parse(
      (await parley('keys', 'create', '--name', 'web-app', '--preset', 'app', '--environments', 'production', ...where)).stdout,
    );
    expect(created).toMatchObject({ scopes: ['invoke', 'threads:read', 'threads:write', 'feedback:write'], environments: ['production'] });
    await t.http().get('/v2/threads').set('X-API-Key', created.key).expect(200);
    expect((await t.http().get('/v2/logs').set('X-API-Key', created.key)).status).toBe(403);
    const listed = JSON.parse((await parley('keys', 'list', ...where)).stdout) as { id: string; scopes: string[] | null }[];
    expect(listed.find((k) => k.id === created.id)!.scopes).toEqual(['invoke', 'threads:read', 'threads:write', 'feedback:write']);

    const unknown = await parley('keys', 'create', '--preset', 'owner', ...where);
    expect(String((unknown.error as Error).message)).toMatch(/Unknown preset "owner"/);
  });

  it('export -o writes exactly the YAML, which applies back with no change', async () => {
    const file = path.join(tmp, 'exported.yaml');
    const yaml = `workspace: ${p.workspace}\nproject: ${p.project}\nprompts:\n  - slug: greet\n    model: echo\n    template:\n      - { role: system, content: "Hi {{name}}" }\n    deploy: [production]\n`;
    fs.writeFileSync(path.join(tmp, 'parley.yaml'), yaml);
    await parley('apply', '-f', path.join(tmp, 'parley.yaml'), '--url', url, '--key', p.key);
    const { stdout, stderr } = await parley(
      'export',
      '--workspace',
      p.workspace,
      '--project',
      p.project,
      '-o',
      file,
      '--url',
      url,
      '--key',
      p.key,
    );
    expect(stdout).toBe('');
    expect(stderr).toContain(`Wrote ${p.workspace}/${p.project} to ${file}`);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^# Exported from Parley: [^\n]*\n\s*workspace: /);
    const again = await parley('apply', '-f', file, '--url', url, '--key', p.key, '--json');
    expect(JSON.parse(again.stdout).changed).toBe(false);
  });

  it("apply warns when a provider's apiKeyEnv is not set on the server", async () => {
    const variable = 'PARLEY_PROVIDER_DX_TEST_UNSET_KEY';
    delete process.env[variable];
    const yaml = `workspace: ${p.workspace}\nproject: ${p.project}\nproviders:\n  - { name: upstream, type: openai, baseUrl: "https://api.example.com/v1", apiKeyEnv: ${variable} }\n`;
    fs.writeFileSync(path.join(tmp, 'providers.yaml'), yaml);
    const unset = await parley('apply', '-f', path.join(tmp, 'providers.yaml'), '--url', url, '--key', p.key);
    expect(unset.stderr).toContain(`parley: warning: provider "upstream": ${variable} is not set on the server`);
    process.env[variable] = 'sk-test';
    try {
      const set = await parley('apply', '-f', path.join(tmp, 'providers.yaml'), '--url', url, '--key', p.key);
      expect(set.stderr).not.toContain('warning');
    } finally {
      delete process.env[variable];
    }
  });
});
