import { DataSource } from 'typeorm';

import { loadAppConfig } from '../src/config/app-config';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { monthStart, uuidBoundOf } from '../src/database/log-partitions';
import { Foundation1763800000000 } from '../src/database/migrations/1763800000000-Foundation';
import { Registry1763900000000 } from '../src/database/migrations/1763900000000-Registry';
import { RequestLogs1763950000000 } from '../src/database/migrations/1763950000000-RequestLogs';
import { LogPartitionsService } from '../src/request-logs/log-partitions.service';
import { uniqueSlug } from './support/factories';
import { FreshDatabase, freshDatabase } from './support/fresh-database';
import { client } from './support/http';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** A UUIDv7-ordered id created at `ms` (what newId() gives at that time). */
const idAt = (ms: number, n: number) => uuidBoundOf(ms).slice(0, 14) + `7000-8000-${String(n).padStart(12, '0')}`;

/**
 * request_logs partitioned by month on UUIDv7 ids: the migration converts a table that already
 * holds logs, listings page across partitions, and LOG_RETENTION_DAYS drops whole partitions.
 */
describe('request log partitions', () => {
  let fresh: FreshDatabase;
  let t: TestApp;
  const workspaceId = '019a0000-0000-7000-8000-00000000a001';
  const projectId = '019a0000-0000-7000-8000-00000000b001';
  const workspace = uniqueSlug('ws');
  const now = Date.now();
  const old = idAt(Date.UTC(2024, 2, 15), 1);
  const recent = idAt(now - 1000, 2);
  const nextMonth = idAt(monthStart(now, 1) + 3_600_000, 3);
  const partitions = async () =>
    (
      await t.dataSource.query(
        `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'request_logs'::regclass ORDER BY 1`,
      )
    ).map((r: { relname: string }) => r.relname);

  beforeAll(async () => {
    fresh = await freshDatabase();
    // The schema as it was before partitioning, with logs in it.
    const before = new DataSource({
      ...buildDataSourceOptions(loadAppConfig({ ...process.env, ...fresh.env })),
      migrations: [Foundation1763800000000, Registry1763900000000, RequestLogs1763950000000],
    } as never);
    await before.initialize();
    await before.runMigrations();
    await before.query(`INSERT INTO workspaces (id, slug, name, created_at) VALUES ($1, $2, 'w', now())`, [workspaceId, workspace]);
    await before.query(`INSERT INTO projects (id, workspace_id, slug, name, created_at) VALUES ($1, $2, 'p', 'p', now())`, [
      projectId,
      workspaceId,
    ]);
    for (const [id, slug] of [
      [old, 'old'],
      [recent, 'recent'],
    ]) {
      await before.query(
        `INSERT INTO request_logs (project_id, id, prompt_slug, kind, environment, url, stream, do_not_record, status, latency_ms, started_at)
         VALUES ($1, $2, $3, 'prompt', 'production', '/x', false, false, 200, 5, now())`,
        [projectId, id, slug],
      );
    }
    await before.destroy();
    t = await createTestApp({ ...fresh.env, LOG_RETENTION_DAYS: '30' });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await fresh?.drop();
  });

  it('converts the existing table: its rows become the first partition, the months ahead exist', async () => {
    const [{ relkind }] = await t.dataSource.query(`SELECT relkind FROM pg_class WHERE relname = 'request_logs'`);
    expect(relkind).toBe('p');
    const names = await partitions();
    const month = (offset: number) => new Date(monthStart(now, offset)).toISOString().slice(0, 7).replace('-', '_');
    // This month lies in the converted table's partition; the next MONTHS_AHEAD (2) months are ready.
    expect(names).toEqual([`request_logs_${month(1)}`, `request_logs_${month(2)}`, `request_logs_before_${month(1)}`]);
    const rows = await t.dataSource.query(`SELECT id, tableoid::regclass::text AS part FROM request_logs ORDER BY id`);
    expect(rows).toEqual([
      { id: old, part: `request_logs_before_${month(1)}` },
      { id: recent, part: `request_logs_before_${month(1)}` },
    ]);
  });

  it('lists and pages across partitions, newest first, and finds a log by id', async () => {
    await t.dataSource.query(
      `INSERT INTO request_logs (project_id, id, prompt_slug, kind, environment, url, stream, do_not_record, status, latency_ms, started_at)
       VALUES ($1, $2, 'later', 'prompt', 'production', '/x', false, false, 502, 5, now())`,
      [projectId, nextMonth],
    );
    const admin = client(t, TEST_ADMIN_KEY);
    const key = (await admin.post(`/v2/workspaces/${workspace}/projects/p/api-keys`, { name: 'k' }).expect(200)).body.key;
    const api = client(t, key);
    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 4; page++) {
      const body = (await api.get(`/v2/logs?limit=1${after}`).expect(200)).body;
      seen.push(...body.data.map((l: { id: string }) => l.id));
      if (!body.has_more) break;
      after = `&after=${body.last_id}`;
    }
    expect(seen).toEqual([nextMonth, recent, old]);
    expect((await api.get('/v2/logs?order=asc&status=success').expect(200)).body.data.map((l: { id: string }) => l.id)).toEqual([
      old,
      recent,
    ]);
    expect((await api.get(`/v2/logs/${old}`).expect(200)).body.promptSlug).toBe('old');
  });

  it('drops whole expired partitions (LOG_RETENTION_DAYS) and keeps creating months ahead', async () => {
    const later = monthStart(now, 3) + 10 * 86_400_000;
    const { created, dropped } = await t.app.get(LogPartitionsService).maintain(later);
    const month = (offset: number) => new Date(monthStart(now, offset)).toISOString().slice(0, 7).replace('-', '_');
    // Retention 30 days at `later`: every partition whose newest possible row is older goes.
    expect(dropped).toEqual([`request_logs_before_${month(1)}`, `request_logs_${month(1)}`]);
    expect(created).toEqual([`request_logs_${month(3)}`, `request_logs_${month(4)}`, `request_logs_${month(5)}`]);
    expect(await partitions()).toEqual([2, 3, 4, 5].map((m) => `request_logs_${month(m)}`));
    expect(await t.dataSource.query(`SELECT id FROM request_logs WHERE project_id = $1`, [projectId])).toEqual([]);
  });
});
