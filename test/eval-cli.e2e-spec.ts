import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { uniqueSlug } from './support/factories';
import { ServerProcess, startServer } from './support/server-process';
import { TEST_ADMIN_KEY } from './support/test-app';

const ROOT = path.join(__dirname, '..');

/** `parley <args>` as its own process on the built sources (npm test builds them first when stale). */
function parley(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DATABASE_URL: _db, PARLEY_URL: _url, PARLEY_KEY: _key, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'dist/cli/main.js'), ...args],
      { cwd: ROOT, env: { ...inherited, LOG_LEVEL: 'silent', DATA_DIR: 'memory://', ...env }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** A prompt whose versions answer each city (v1) or the city and "!" (v2), two graders and three cities. */
const parleyYaml = (workspace: string, content: string) => `
workspace: ${workspace}
project: ci
graders:
  - name: exact
    config: { type: equals }
  - name: mentions
    config: { type: contains, ignoreCase: true }
datasets:
  - name: cities
    items:
      - { variables: { city: Paris }, expected: Paris }
      - { variables: { city: Oslo }, expected: Oslo }
      - { variables: { city: Lima }, expected: Lima }
prompts:
  - slug: city
    model: echo
    template:
      - { role: user, content: "${content}" }
`;

describe('parley eval run: the CI command, as a process against a server process', () => {
  let server: ServerProcess;
  let workspace: string;
  let projectKey: string;
  let tmp: string;
  let passingRun: string;
  let admin: string[];

  const http = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const response = await fetch(server.url + url, {
      method,
      headers: { 'X-API-Key': TEST_ADMIN_KEY, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    server = await startServer({});
    workspace = uniqueSlug('ci');
    await http('POST', '/v2/apply', { yaml: parleyYaml(workspace, '{{city}}') });
    // v2 shouts: `exact` fails every item, `mentions` still passes.
    const second = await http<{ prompts: unknown[] }>('POST', '/v2/apply', { yaml: parleyYaml(workspace, '{{city}}!') });
    expect(second.prompts).toEqual([expect.objectContaining({ slug: 'city', version: 2 })]);
    projectKey = (await http<{ key: string }>('POST', `/v2/workspaces/${workspace}/projects/ci/api-keys`, { name: 'ci' })).key;
    admin = ['--url', server.url, '--key', TEST_ADMIN_KEY, '--workspace', workspace, '--project', 'ci', '--poll-interval', '100'];
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-eval-'));
  }, 120_000);
  afterAll(async () => {
    server?.child.kill();
    await server?.exited;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('exits 0 on a passing run and prints the table: per grader mean, pass rate and the minimum met', async () => {
    const { code, stdout, stderr } = await parley([
      'eval',
      'run',
      'city@1',
      '--dataset',
      'cities',
      '--min-score',
      'exact=1',
      '--baseline',
      'auto',
      ...admin,
    ]);
    expect({ code, stderr }).toEqual({
      code: 0,
      stderr: expect.stringContaining('no baseline: no completed run of city on dataset cities with the graders exact, mentions yet'),
    });
    expect(stderr).toMatch(/parley: run [0-9a-f-]{36} completed: 3\/3 items/);
    passingRun = /^Run ([0-9a-f-]{36}) "city v1 on cities v1": completed$/m.exec(stdout)![1];
    expect(stdout).toMatch(/^ {2}grader +type +threshold +mean +pass rate +passed +min score +result$/m);
    expect(stdout).toMatch(/^ {2}exact +equals +1 +1\.000 +100\.0% +3\/3 +1 +met$/m);
    expect(stdout).toMatch(/^ {2}mentions +contains +1 +1\.000 +100\.0% +3\/3$/m);
    expect(stdout).toMatch(/^Items: 3 total, 3 completed, 0 errored, 3 passed every grader$/m);
    expect(stdout).toMatch(/^Cost: \$0\.000000 \(3 prompt \+ 3 completion tokens\)/m);
    expect(stdout).toMatch(/^Baseline: none\nResult: PASS$/m);
  }, 120_000);

  it('exits 1 on a regression: a --min-score not met and every item regressed against the auto baseline', async () => {
    const { code, stdout } = await parley([
      'eval',
      'run',
      'city@2',
      '--dataset',
      'cities',
      '--min-score',
      'exact=0.9',
      '--baseline',
      'auto',
      ...admin,
    ]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ {2}exact +equals +1 +0\.000 +0\.0% +0\/3 +0\.9 +NOT MET$/m);
    expect(stdout).toMatch(/^ {2}mentions +contains +1 +1\.000 +100\.0% +3\/3$/m);
    expect(stdout).toContain(`Baseline: run ${passingRun} "city v1 on cities v1" (auto): 0 improved, 3 regressed, 0 unchanged`);
    expect(stdout.match(/^ {2}regressed: item [0-9a-f-]{36} {2}1\.000 -> 0\.500$/gm)).toHaveLength(3);
    expect(stdout).toMatch(
      new RegExp(
        `^Result: FAIL\\n {2}- grader "exact": mean score 0\\.000 is below the minimum 0\\.9\\n {2}- 3 items regressed against run ${passingRun}$`,
        'm',
      ),
    );
  }, 120_000);

  it('runs a draft file with a project key against a named baseline: no regression exits 0 (--json)', async () => {
    const draft = path.join(tmp, 'draft.yaml');
    fs.writeFileSync(draft, 'model: echo\ntemplate:\n  - { role: user, content: "{{city}}" }\n');
    const key = ['--url', server.url, '--key', projectKey, '--poll-interval', '100'];
    const { code, stdout } = await parley([
      'eval',
      'run',
      `city@${draft}`,
      '--dataset',
      'cities',
      '--baseline',
      passingRun,
      '--json',
      ...key,
    ]);
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout);
    expect(outcome).toMatchObject({
      passed: true,
      reasons: [],
      run: { status: 'completed', target: { type: 'draft', prompt: 'city' }, progress: { total: 3, completed: 3, passed: 3 } },
      baseline: { id: passingRun, chosen: 'given' },
      comparison: { counts: { improved: 0, regressed: 0, unchanged: 3 }, regressed: [] },
    });
    // A shouting draft regresses against the same baseline: exit 1 with no --min-score at all.
    fs.writeFileSync(draft, 'model: echo\ntemplate:\n  - { role: user, content: "{{city}}!" }\n');
    const worse = await parley(['eval', 'run', `city@${draft}`, '--dataset', 'cities', '--baseline', passingRun, ...key]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/^ {2}- 3 items regressed against run /m);
  }, 120_000);

  it('exits 2 when nothing can be decided: usage, no server, a refused request', async () => {
    const run = ['eval', 'run', 'city@1', '--dataset'];
    // [arguments, what stderr says]: independent processes, run side by side.
    const cases: [string[], string][] = [
      [['eval', 'run', 'city@1'], "required option '--dataset <name>' not specified"],
      [[...run, 'cities'], 'eval run needs a running Parley server'],
      [[...run, 'cities', '--url', 'http://127.0.0.1:9', '--key', 'k'], 'Cannot reach the Parley server at http://127.0.0.1:9'],
      [[...run, 'cities', '--url', server.url, '--key', TEST_ADMIN_KEY], '--workspace <slug> --project <slug>'],
      [[...run, 'nope', ...admin], 'parley: Dataset not found'],
      [['eval', 'run', 'city', '--dataset', 'cities', ...admin], 'expected <prompt>@<version>'],
      [[...run, 'cities', '--graders', 'exact', '--baseline', passingRun, ...admin], 'used the graders exact,mentions, not exact'],
      [[...run, 'cities', '--min-score', 'polite=0.8', ...admin], `--min-score names "polite", not among the run's graders`],
    ];
    const results = await Promise.all(cases.map(([args]) => parley(args)));
    expect(results.map(({ code, stderr }) => ({ code, stderr }))).toEqual(
      cases.map(([, says]) => ({ code: 2, stderr: expect.stringContaining(says) })),
    );
  }, 120_000);
});
