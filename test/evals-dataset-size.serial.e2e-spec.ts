import { performance } from 'node:perf_hooks';

import { DatasetsRepository } from '../src/evals/datasets/datasets.repository';
import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { createTestApp, TestApp } from './support/test-app';

const ITEMS = 100_000;

/**
 * A 100,000-item dataset stays fast (docs/evals.md, "Size"): listing a page, at any depth, of the
 * current or an older version, and a run's read of what it still has to do are index range scans,
 * whose plans are checked here; the pages are walked through HTTP.
 */
describe('a 100,000-item dataset', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let repository: DatasetsRepository;
  let datasetId: string;
  let ids: string[];

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    api = client(t, p.key);
    repository = t.app.get(DatasetsRepository);
    expect((await api.post('/v2/datasets', { name: 'big' })).status).toBe(200);
    datasetId = (await api.get('/v2/datasets/big')).body.id;
    // Version 1 holds every item; version 2 edits the first 1,000 (their revisions 1 end at 2).
    await t.dataSource.query(
      `INSERT INTO dataset_items (project_id, dataset_id, id, since_version, until_version, variables, messages, expected, metadata, source, created_at)
       SELECT $1, $2, ('00000000-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 1, CASE WHEN n <= 1000 THEN 2 END,
              jsonb_build_object('n', n::text), '[]', to_jsonb('answer ' || n), '{}', NULL, now()
         FROM generate_series(1, $3) AS n`,
      [p.projectId, datasetId, ITEMS],
    );
    await t.dataSource.query(
      `INSERT INTO dataset_items (project_id, dataset_id, id, since_version, until_version, variables, messages, expected, metadata, source, created_at)
       SELECT $1, $2, ('00000000-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 2, NULL, jsonb_build_object('n', 'edited ' || n), '[]', NULL, '{}', NULL, now()
         FROM generate_series(1, 1000) AS n`,
      [p.projectId, datasetId],
    );
    await t.dataSource.query(
      `INSERT INTO dataset_versions (project_id, dataset_id, version, item_count, change, created_at) VALUES ($1, $2, 1, $3, 'seeded', now()), ($1, $2, 2, $3, 'edited', now())`,
      [p.projectId, datasetId, ITEMS],
    );
    await t.dataSource.query('UPDATE datasets SET version = 2, item_count = $3 WHERE project_id = $1 AND id = $2', [
      p.projectId,
      datasetId,
      ITEMS,
    ]);
    await t.dataSource.query('ANALYZE dataset_items');
    ids = Array.from({ length: ITEMS }, (_, i) => `00000000-0000-7000-8000-${(i + 1).toString(16).padStart(12, '0')}`);
  }, 120_000);

  afterAll(async () => {
    // The PostgreSQL test database is shared and kept between runs: leave no volume behind.
    for (const table of ['dataset_items', 'dataset_versions'])
      await t.dataSource.query(`DELETE FROM ${table} WHERE project_id = $1`, [p.projectId]);
    await t.close();
  });

  /** The plan of the statement `read` sends, as PostgreSQL would run it. */
  async function planOf(read: () => Promise<unknown>): Promise<string> {
    const manager = t.dataSource.manager;
    const original = manager.query.bind(manager);
    let captured: [string, unknown[]] | null = null;
    // Only the dataset's statement: the periodic work (the limits sync) uses the same manager meanwhile.
    const spy = jest.spyOn(manager, 'query').mockImplementation((sql: string, params?: unknown[]) => {
      if (sql.includes('FROM dataset_items')) captured = [sql, params ?? []];
      return original(sql, params);
    });
    try {
      await read();
    } finally {
      spy.mockRestore();
    }
    const [sql, params] = captured!;
    const rows: { 'QUERY PLAN': string }[] = await t.dataSource.query(`EXPLAIN ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  // SCHEMA_MODE=partitioned (docs/scaling.md) scans the partition's own copy of the index.
  const INDEX_SCAN = /Index (Only )?Scan using \S+ on dataset_items(_p\d+)?/;

  it('lists a page of the current version, at its start and deep inside, by an index range', async () => {
    const deep = ids[90_000];
    for (const after of [null, deep]) {
      const plan = await planOf(() => repository.listItems(p.projectId, datasetId, 2, after, 101, true));
      expect(plan).toMatch(INDEX_SCAN);
      expect(plan).not.toMatch(/Seq Scan on dataset_items|Sort/);
    }
    const started = performance.now();
    const page = await api.get(`/v2/datasets/big/items?after=${deep}&limit=100`);
    const ms = performance.now() - started;
    expect(page.status).toBe(200);
    expect(page.body.data.map((item: { id: string }) => item.id)).toEqual(ids.slice(90_001, 90_101));
    expect(page.body.version).toBe(2);
    console.log(`page 901 of 1,000 (100,000 items): ${ms.toFixed(1)} ms through HTTP`);
  });

  it('reads an older version with the revisions it held', async () => {
    const plan = await planOf(() => repository.listItems(p.projectId, datasetId, 1, ids[50_000], 101, false));
    expect(plan).toMatch(INDEX_SCAN);
    expect(plan).not.toMatch(/Seq Scan on dataset_items|Sort/);
    const v1 = await api.get('/v2/datasets/big/items?version=1&limit=2');
    const v2 = await api.get('/v2/datasets/big/items?limit=2');
    expect(v1.body.data.map((item: { variables: object }) => item.variables)).toEqual([{ n: '1' }, { n: '2' }]);
    expect(v2.body.data.map((item: { variables: object }) => item.variables)).toEqual([{ n: 'edited 1' }, { n: 'edited 2' }]);
  });

  it("reads a run's remaining items by an index range, skipping the stored ones by the run items' key", async () => {
    const runId = '00000000-0000-7000-8000-0000000000aa';
    const plan = await planOf(() => repository.pendingItems(p.projectId, datasetId, 2, runId, ids[40_000], 200));
    expect(plan).toMatch(INDEX_SCAN);
    expect(plan).toMatch(/Index (Only )?Scan using \S+ on eval_run_items/);
    expect(plan).not.toMatch(/Seq Scan on dataset_items|Sort/);
  });

  it('walks every item of a page range exactly once with the keyset cursor', async () => {
    const seen: string[] = [];
    let after = ids[99_499];
    for (;;) {
      const page = await api.get(`/v2/datasets/big/items?after=${after}&limit=100`);
      seen.push(...page.body.data.map((item: { id: string }) => item.id));
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    expect(seen).toEqual(ids.slice(99_500));
  });
});
