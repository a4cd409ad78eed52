import { RequestLogsRepository } from '../src/request-logs/request-logs.repository';
import { ThreadsRepository } from '../src/threads/threads.repository';
import { bulkInsertMessages, bulkInsertThreads, createProject, TestProject } from './support/factories';
import { bulkInsertLogs } from './support/log-factories';
import { createTestApp, TestApp } from './support/test-app';

const LOGS = 20_000;
const THREADS = 5_000;
const PAGE = 51;

/**
 * The previews of the log and thread lists (docs/decisions.md, "Request log storage" and "Threads and messages") at size: the
 * list's plan is the plain list's (the keyset index, no sort, no scan of another table), and the
 * previews' subqueries run once per row of the page, on an index, after the LIMIT.
 */
describe('list previews add no scan', () => {
  let t: TestApp;
  let a: TestProject;
  let logs: RequestLogsRepository;
  let threads: ThreadsRepository;
  let logIds: string[];
  let threadIds: string[];

  beforeAll(async () => {
    t = await createTestApp();
    a = await createProject(t);
    logs = t.app.get(RequestLogsRepository);
    threads = t.app.get(ThreadsRepository);
    const inputs = Array.from({ length: LOGS }, (_, i) => `question ${i} ${'about the weather '.repeat(20)}`);
    await bulkInsertLogs(t, a.projectId, inputs, { outputs: inputs.map((_, i) => `answer ${i}`), startMs: Date.now() - 3_600_000 });
    await bulkInsertThreads(t, a.projectId, THREADS);
    threadIds = (await t.dataSource.query('SELECT id FROM threads WHERE project_id = $1 ORDER BY id DESC', [a.projectId])).map(
      (r: { id: string }) => r.id,
    );
    // The newest threads hold turns (the first page's previews read them), an older one many.
    for (const id of threadIds.slice(0, 60)) await bulkInsertMessages(t, a.projectId, id, 3);
    await bulkInsertMessages(t, a.projectId, threadIds[10], 1_500);
    await t.dataSource.query(
      'UPDATE request_logs SET thread_id = $2 WHERE project_id = $1 AND id IN (SELECT id FROM request_logs WHERE project_id = $1 ORDER BY id LIMIT 500)',
      [a.projectId, threadIds[10]],
    );
    await t.dataSource.query('VACUUM ANALYZE request_logs');
    await t.dataSource.query('VACUUM ANALYZE threads');
    await t.dataSource.query('VACUUM ANALYZE thread_messages');
    logIds = (await t.dataSource.query('SELECT id FROM request_logs WHERE project_id = $1 ORDER BY id DESC', [a.projectId])).map(
      (r: { id: string }) => r.id,
    );
  }, 300_000);

  afterAll(async () => {
    // The PostgreSQL test database is shared and kept between runs: leave no volume behind.
    await t.dataSource.query('DELETE FROM request_logs WHERE project_id = $1', [a.projectId]);
    await t.dataSource.query('DELETE FROM thread_messages WHERE project_id = $1', [a.projectId]);
    await t.dataSource.query('DELETE FROM threads WHERE project_id = $1', [a.projectId]);
    await t.close();
  });

  async function plan([sql, parameters]: [string, unknown[]]): Promise<string> {
    const rows: { 'QUERY PLAN': string }[] = await t.dataSource.query(`EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) ${sql}`, parameters);
    const out = rows.map((r) => r['QUERY PLAN']).join('\n');
    if (process.env.SHOW_PLANS) console.log(out);
    return out;
  }
  /** The `Output:` line of the first plan node matching `node`. */
  const outputOf = (text: string, node: RegExp) => {
    const lines = text.split('\n');
    const at = lines.findIndex((line) => node.test(line.trim()) || node.test(line));
    return lines.slice(at + 1).find((line) => line.trim().startsWith('Output:'));
  };
  /** The scans of tables (not of a function's rows) a plan makes, each with its loops: `Index Scan using x on y ... (loops=n)`. */
  const tableScans = (text: string) =>
    text
      .split('\n')
      .filter((line) => /(Seq|Index|Index Only|Bitmap Heap|Bitmap Index) Scan/.test(line))
      .map((line) => line.trim());

  it('has the volume it claims', () => {
    expect([logIds.length, threadIds.length]).toEqual([LOGS, THREADS]);
  });

  it('a page of logs walks the primary key and sorts nothing; its previews read no other table', async () => {
    for (const after of [undefined, logIds[LOGS / 2]]) {
      const text = await plan(logs.listQuery(a.projectId, {}, 'desc', after, PAGE).getQueryAndParameters());
      // One scan per monthly partition (docs/operations.md), each on its primary key; the page comes from one of them.
      const scans = tableScans(text);
      expect(scans.filter((scan) => !/Index Scan Backward using request_logs\w*_pkey on \S*request_logs\S* l_?\d* /.test(scan))).toEqual(
        [],
      );
      expect(scans.some((scan) => /rows=51(\.00)? loops=1\)/.test(scan))).toBe(true);
      expect(text).not.toMatch(/Seq Scan|Sort/);
      // The previews are computed where the page's 51 rows are returned, once each.
      expect(outputOf(text, /^Limit /)).toMatch(/SubPlan/);
      expect(text).toMatch(/SubPlan \d+\n\s+->\s+\w+ .*loops=51\)/);
    }
  });

  it('a filtered page that has to sort computes the previews after the sort and the limit, for the page only', async () => {
    const filters = { metadata: { key: 'topic', value: 'x' }, status: { success: true } };
    const text = await plan(logs.listQuery(a.projectId, filters, 'desc', undefined, PAGE).getQueryAndParameters());
    const sort = outputOf(text, /->\s+Sort /);
    expect(sort).toBeDefined();
    expect(sort).not.toMatch(/jsonb_path|SubPlan/);
    expect(outputOf(text, /^Limit /)).toMatch(/SubPlan/);
  });

  it('a page of threads with previews walks threads_live_idx; each preview is an index lookup per thread of the page', async () => {
    const text = await plan(threads.listLivePreviewedQuery(a.projectId, undefined, PAGE).getQueryAndParameters());
    expect(text).not.toMatch(/Sort Key/);
    const [walk, ...perThread] = tableScans(text);
    expect(walk).toMatch(/Index (Only )?Scan (Backward )?using \w+ on \S*threads\S* t\S* .*loops=1\)/);
    expect(text).not.toMatch(/Seq Scan on \S*threads/);
    // Per thread of the page (loops=51): its first and last turn (the ordered index, one row), its
    // count, its calls (request_logs_thread_idx of each monthly partition; an empty partition's
    // statistics may make it a scan of nothing).
    const indexed = perThread.filter((scan) => /(Index|Index Only|Bitmap Index) Scan/.test(scan));
    expect(indexed.every((scan) => /on \S*(thread_messages|request_logs)\S* .*loops=51\)/.test(scan) || /Bitmap Index/.test(scan))).toBe(
      true,
    );
    expect(indexed.filter((scan) => /Index Scan (Backward )?using thread_messages\w*seq_key/.test(scan))).toHaveLength(2);
    expect(indexed.some((scan) => /request_logs\w*_thread_idx/.test(scan))).toBe(true);
    const scanned = perThread.filter((scan) => /Seq Scan/.test(scan));
    expect(scanned.filter((scan) => !/rows=0(\.00)? loops=51\)/.test(scan))).toEqual([]);
    // The first and the last turn stop at one row each, whatever the thread's length.
    expect(text).not.toMatch(/thread_messages_seq_key on \S*thread_messages\S* tm\S* \(actual time=\S+ rows=([2-9]|\d{2,})/);
  });

  it('a long thread costs its capped count, not its length', async () => {
    const rows = await threads.listLivePreviewed(a.projectId, undefined, 20, {});
    const long = rows.find((row) => row.thread.id === threadIds[10])!;
    expect(Number(long.preview!.preview_count)).toBe(1_001);
    expect(long.preview!.preview_cost).toEqual({ calls: 500, cost: null });
  });
});
