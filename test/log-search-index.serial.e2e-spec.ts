import { performance } from 'node:perf_hooks';

import { SEARCH_WINDOW, searchSql, SLICE_GROWTH } from '../src/request-logs/request-log-search';
import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { bulkInsertLogs } from './support/log-factories';
import { createTestApp, TestApp } from './support/test-app';

const A_LOGS = SEARCH_WINDOW * (SLICE_GROWTH + 2);
const B_LOGS = 5_000;

/** Oldest first: `common` in every other log, `middling` in 1 in 60, `rare` in 1 in 1,500; `foreign` only in project B. */
const inputOf = (i: number, project: 'a' | 'b') =>
  [
    `log ${i} of ${project}`,
    i % 2 === 0 ? 'common' : 'other',
    i % 60 === 11 ? 'middling' : '',
    i % 1500 === 17 ? 'rare' : '',
    project === 'b' && i % 2 === 1 ? 'foreign' : '',
  ].join(' ');

/**
 * Search's plans at size (docs/performance.md, "Full-text search over request logs"): the window
 * walks a keyset index in page order, the slices after it ask the GIN index inside this project, a
 * search without words scans nothing; and a search costs about what a page of the plain list costs.
 */
describe('log search plans: the keyset window, then the GIN index by slices', () => {
  let t: TestApp;
  let a: TestProject;
  let b: TestProject;
  let api: Client;
  let ids: string[];

  beforeAll(async () => {
    t = await createTestApp();
    a = await createProject(t);
    b = await createProject(t);
    api = client(t, a.key);
    const start = Date.now() - 3_600_000;
    for (let from = 0; from < A_LOGS; from += 5_000) {
      const inputs = Array.from({ length: Math.min(5_000, A_LOGS - from) }, (_, k) => inputOf(from + k, 'a'));
      await bulkInsertLogs(t, a.projectId, inputs, { startMs: start + from, outputs: inputs.map((_, k) => `reply ${from + k}`) });
    }
    const inputsB = Array.from({ length: B_LOGS }, (_, i) => inputOf(i, 'b'));
    await bulkInsertLogs(t, b.projectId, inputsB, { startMs: start, outputs: inputsB });
    // As autovacuum would have by then: statistics, and the GIN pending list merged into the index.
    await t.dataSource.query('VACUUM ANALYZE request_logs');
    ids = (await t.dataSource.query('SELECT id FROM request_logs WHERE project_id = $1 ORDER BY id', [a.projectId])).map(
      (r: { id: string }) => r.id,
    );
  }, 300_000);

  afterAll(async () => {
    // The PostgreSQL test database is shared and kept between runs: leave no volume behind.
    await t.dataSource.query('DELETE FROM request_logs WHERE project_id IN ($1, $2)', [a.projectId, b.projectId]);
    await t.close();
  });

  async function plan(sql: string, parameters: Record<string, unknown>, analyze = false): Promise<string> {
    const [text, values] = t.dataSource.driver.escapeQueryWithParameters(sql, parameters, {});
    const rows: { 'QUERY PLAN': string }[] = await t.dataSource.query(`EXPLAIN ${analyze ? '(ANALYZE) ' : ''}${text}`, values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  it('has the volume it claims', () => {
    expect(ids).toHaveLength(A_LOGS);
  });

  it('the window walks the primary key in page order, the cursor in its index condition, and sorts nothing', async () => {
    const first = searchSql(a.projectId, {}, 'common', 'desc', undefined);
    const text = await plan(first.recent, { ...first.parameters, take: 51 });
    expect(text).toMatch(/Index (Only )?Scan Backward using request_logs_\w+_pkey/);
    expect(text).toMatch(/Filter: \(w\.search @@ '''common'''::tsquery\)/);
    expect(text).not.toMatch(/Bitmap|Sort Key/);
    const deep = searchSql(a.projectId, {}, 'common', 'desc', ids[5_000]);
    expect(await plan(deep.recent, { ...deep.parameters, take: 51 })).toMatch(/Index Cond: \(\(project_id = .*\) AND \(id < .*\)\)/);
  });

  it("a slice asks the GIN index inside this project's lexeme, keeps the slice's bounds, and sorts what it finds", async () => {
    const sql = searchSql(a.projectId, {}, 'rare', 'desc', undefined);
    const [upper, lower] = [ids[A_LOGS - SEARCH_WINDOW], ids[A_LOGS - SEARCH_WINDOW * (SLICE_GROWTH + 1)]];
    const text = await plan(sql.slice(true), { ...sql.parameters, upper, lower, rest: 51 }, true);
    expect(text).toMatch(/Bitmap Index Scan on request_logs_\w+_search_idx/);
    expect(text).toContain(`Index Cond: (search @@ '''rare'' & ''project ${a.projectId}'''::tsquery)`);
    expect(text).toMatch(/Sort Key: l\.id DESC/);
    // Neither a walk down the id order nor a scan that reads the slice's logs one by one.
    expect(text).not.toMatch(/Index Scan Backward|Rows Removed by Filter: \d{3,}/);
  });

  it('a search that parses to no words scans nothing: a one-time filter', async () => {
    const sql = searchSql(a.projectId, {}, '!!!', 'desc', undefined);
    const recent = await plan(sql.recent, { ...sql.parameters, take: 51 }, true);
    expect(recent).toMatch(/One-Time Filter: false|One-Time Filter: \(numnode/);
    expect(recent).not.toMatch(/Index Scan[^\n]*\(actual time/);
    const slice = await plan(sql.slice(false), { ...sql.parameters, upper: ids[A_LOGS - 1], rest: 51 }, true);
    expect(slice).not.toMatch(/Bitmap Index Scan[^\n]*\(actual time/);
  });

  it('pages through a rare word across the window, the slice after it and the rest, every match once', async () => {
    const expected = ids.filter((_, i) => i % 1500 === 17).reverse();
    const seen: string[] = [];
    for (let after = ''; ;) {
      const body = (await api.get(`/v2/logs?q=rare&limit=3${after}`).expect(200)).body;
      seen.push(...body.data.map((l: { id: string }) => l.id));
      if (!body.has_more) break;
      after = `&after=${body.last_id}`;
    }
    expect(seen).toEqual(expected);
  });

  it('every partition has the GIN index and keeps the search column in the row, one made later too', async () => {
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(
        "CREATE TABLE request_logs_later PARTITION OF request_logs FOR VALUES FROM ('fff00000-0000-0000-0000-000000000000') TO (MAXVALUE)",
      );
      const partitions: { name: string; storage: string; indexed: boolean }[] = await runner.query(
        `SELECT c.relname AS name, a.attstorage AS storage,
                EXISTS (SELECT 1 FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_am m ON m.oid = x.relam
                         WHERE i.indrelid = c.oid AND m.amname = 'gin' AND i.indkey[0] = a.attnum) AS indexed
           FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'search'
          WHERE h.inhparent = 'request_logs'::regclass`,
      );
      expect(partitions.length).toBeGreaterThanOrEqual(2);
      expect(partitions.filter((p) => p.storage !== 'm' || !p.indexed)).toEqual([]);
      expect(partitions.map((p) => p.name)).toContain('request_logs_later');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('a search costs about what a page of the plain list costs, whatever the words', async () => {
    const median = async (path: string) => {
      const times: number[] = [];
      await api.get(path).expect(200); // warm-up
      for (let i = 0; i < 7; i++) {
        const started = performance.now();
        await api.get(path).expect(200);
        times.push(performance.now() - started);
      }
      return times.sort((x, y) => x - y)[3];
    };
    const list = await median('/v2/logs?limit=50');
    const slow: { q: string; ms: number; list: number }[] = [];
    for (const q of ['common', 'middling', 'rare', 'foreign', 'absent', '"log 17"']) {
      const ms = await median(`/v2/logs?limit=50&q=${encodeURIComponent(q)}`);
      if (ms >= list * 5 + 100) slow.push({ q, ms, list });
    }
    expect(slow).toEqual([]);
  });
});
