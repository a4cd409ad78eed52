import { performance } from 'node:perf_hooks';

import { ThreadsRepository } from '../src/threads/threads.repository';
import { bulkInsertThreads, createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { createTestApp, TestApp } from './support/test-app';

const PER_PROJECT = 10_000;
let USES_LIVE_INDEX = /Index (Only )?Scan (Backward )?using threads_live_idx on threads/;

/**
 * Thread listing is a keyset query on the partial index threads_live_idx, so a page deep in a large
 * project costs what the first page costs (docs/pagination-explain.md records the plans).
 */
describe('thread listing uses threads_live_idx', () => {
  let t: TestApp;
  let a: TestProject;
  let b: TestProject;
  let api: Client;
  let repository: ThreadsRepository;
  let newestFirst: string[];

  beforeAll(async () => {
    t = await createTestApp();
    a = await createProject(t);
    b = await createProject(t);
    api = client(t, a.key);
    repository = t.app.get(ThreadsRepository);
    await bulkInsertThreads(t, a.projectId, PER_PROJECT);
    await bulkInsertThreads(t, b.projectId, PER_PROJECT);
    // A few deleted ones, which the partial index leaves out.
    await t.dataSource.query(
      'UPDATE threads SET deleted_at = now() WHERE project_id = $1 AND id IN (SELECT id FROM threads WHERE project_id = $1 ORDER BY id LIMIT 50)',
      [a.projectId],
    );
    await t.dataSource.query('ANALYZE threads');
    // SCHEMA_MODE=partitioned (docs/scaling.md): the scan uses the partition's own copy of the index.
    const copies: { name: string }[] = await t.dataSource.query(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'threads_live_idx'::regclass`,
    );
    const names = ['threads_live_idx', ...copies.map((c) => c.name)].join('|');
    USES_LIVE_INDEX = new RegExp(`Index (Only )?Scan (Backward )?using (${names}) on threads(_p\\d+)?`);
    const rows: { id: string }[] = await t.dataSource.query(
      'SELECT id FROM threads WHERE project_id = $1 AND deleted_at IS NULL ORDER BY id DESC',
      [a.projectId],
    );
    newestFirst = rows.map((r) => r.id);
  }, 120_000);

  afterAll(async () => {
    // The PostgreSQL test database is shared and kept between runs: leave no volume behind.
    await t.dataSource.query('DELETE FROM threads WHERE project_id IN ($1, $2)', [a.projectId, b.projectId]);
    await t.close();
  });

  async function plan(afterId: string | undefined): Promise<string> {
    const [sql, params] = repository.listLiveQuery(a.projectId, afterId, 101).getQueryAndParameters();
    const rows: { 'QUERY PLAN': string }[] = await t.dataSource.query(`EXPLAIN ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  it('has the volume it claims', () => {
    expect(newestFirst).toHaveLength(PER_PROJECT - 50);
  });

  it('EXPLAIN of the first page shows an index scan on threads_live_idx', async () => {
    const text = await plan(undefined);
    expect(text).toMatch(USES_LIVE_INDEX);
    expect(text).not.toMatch(/Seq Scan|Sort/);
  });

  it('EXPLAIN of a page deep in the list shows an index scan on threads_live_idx with the cursor in the index condition', async () => {
    const text = await plan(newestFirst[9000]);
    expect(text).toMatch(USES_LIVE_INDEX);
    expect(text).toMatch(/Index Cond: \(\(project_id = .*\) AND \(id < .*\)\)/);
    expect(text).not.toMatch(/Seq Scan|Sort/);
  });

  it('the repository query returns that page', async () => {
    const rows = await repository.listLive(a.projectId, newestFirst[9000], 101);
    expect(rows.map((r) => r.id)).toEqual(newestFirst.slice(9001, 9102));
  });

  it('the last page through HTTP is not dramatically slower than the first', async () => {
    const lastCursor = newestFirst[newestFirst.length - 101];
    const time = async (path: string) => {
      const start = performance.now();
      const res = await api.get(path);
      const elapsed = performance.now() - start;
      expect(res.status).toBe(200);
      return { elapsed, body: res.body };
    };
    const first: number[] = [];
    const last: number[] = [];
    await time('/v2/threads?limit=100'); // warm-up
    for (let i = 0; i < 7; i++) {
      first.push((await time('/v2/threads?limit=100')).elapsed);
      const page = await time(`/v2/threads?limit=100&after=${lastCursor}`);
      last.push(page.elapsed);
      expect(page.body.data).toHaveLength(100);
      expect(page.body.has_more).toBe(false);
      expect(page.body.last_id).toBe(newestFirst.at(-1));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    expect(median(last)).toBeLessThan(median(first) * 5 + 20);
  });
});
