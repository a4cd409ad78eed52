import * as http from 'node:http';

import { rollupsFromLogsQuery } from '../src/request-logs/usage-rollups';
import { useCrashFixture } from './support/crash-fixture';
import { createProject, TestProject } from './support/factories';
import { deploy, invokePath } from './support/invoke-factories';
import { TEST_ADMIN_KEY } from './support/test-app';

function invoke(url: string, key: string, body: object): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(JSON.stringify(body));
  });
}

/** Numbers as numbers (bigint and numeric come back as text), dates as ISO text. */
function normalise(row: Record<string, unknown>): Record<string, unknown> {
  const text = new Set(['prompt_slug', 'environment', 'model', 'provider_name', 'api_key_id', 'project_id']);
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => {
      if (value instanceof Date) return [key, value.toISOString()];
      if (Array.isArray(value)) return [key, value.map(Number)];
      if (typeof value === 'string' && !text.has(key) && /^-?\d+(\.\d+)?$/.test(value)) return [key, Number(value)];
      return [key, value];
    }),
  );
}

/**
 * Rollups are written by the statement that writes the logs (docs/usage.md, "Rollups"): under a
 * load of concurrent prompt and assistant calls, plain and streamed, from two keys, kill -9 the
 * server mid-way, start again on the same database, and the rollups equal the sums over the
 * logs, row for row. Needs `npm run build` first (CI builds first).
 */
describe('usage rollups survive kill -9 equal to the logs', () => {
  const crash = useCrashFixture();

  it('keeps rollups and logs equal, row for row, across a kill mid-load', async () => {
    const remote = crash.remote();
    const server = crash.server();
    const p: TestProject = await createProject(remote);
    const second = await remote
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ name: 'second' })
      .expect(200);
    const keys = [p.key, second.body.key as string];
    await deploy(remote, p, { slug: 'load-prompt' });
    await deploy(remote, p, { slug: 'load-assistant', kind: 'assistant' });

    const total = 240;
    const concurrency = 12;
    let next = 0;
    let answered = 0;
    let killed = false;
    const worker = async () => {
      while (!killed && next < total) {
        const n = next++;
        const slug = n % 3 === 0 ? 'load-assistant' : 'load-prompt';
        const body = {
          stream: n % 2 === 0,
          metadata: { n },
          messages: [{ role: 'user', content: `call number ${n} ${'word '.repeat(n % 9)}` }],
        };
        const status = await invoke(`${server.url}${invokePath(p, slug)}`, keys[n % 2], body);
        if (status !== 200) continue;
        answered += 1;
        if (answered >= total / 3 && !killed) {
          killed = true;
          crash.kill();
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (!killed) crash.kill();
    expect(answered).toBeGreaterThanOrEqual(total / 3);

    const after = await crash.reopen();
    const fromLogs: Array<Record<string, unknown>> = await after.dataSource.query(
      `${rollupsFromLogsQuery('project_id = $1')} ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    const columns = Object.keys(fromLogs[0]);
    const rollups: Array<Record<string, unknown>> = await after.dataSource.query(
      `SELECT ${columns.join(', ')} FROM usage_rollups WHERE project_id = $1 ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    expect(rollups.map(normalise)).toEqual(fromLogs.map(normalise));
    const dailyFromLogs: Array<Record<string, unknown>> = await after.dataSource.query(
      `${rollupsFromLogsQuery('project_id = $1', 'day')} ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    const daily: Array<Record<string, unknown>> = await after.dataSource.query(
      `SELECT ${Object.keys(dailyFromLogs[0]).join(', ')} FROM usage_rollups_daily WHERE project_id = $1 ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    expect(daily.map(normalise)).toEqual(dailyFromLogs.map(normalise));
    // Both keys and both slugs were summed, and every answered call is among the calls counted.
    expect(new Set(rollups.map((r) => `${r.api_key_id}/${r.prompt_slug}`)).size).toBe(4);
    expect(rollups.reduce((sum, r) => sum + Number(r.calls), 0)).toBeGreaterThanOrEqual(answered);
  }, 180_000);
});
