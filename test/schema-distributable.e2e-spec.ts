import { checkDistributable, REFERENCE_TABLES } from '../src/database/partitioned-schema';
import { createProject, createThread } from './support/factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * The schema is distributable by project_id (docs/scaling.md) in either SCHEMA_MODE: every
 * primary key, unique index and foreign key of a project-scoped table includes project_id. In
 * SCHEMA_MODE=partitioned (CI runs the whole suite so on PostgreSQL) those tables are really
 * hash-partitioned by it, and PostgreSQL itself refuses a key that breaks the rule.
 */
const partitioned = process.env.SCHEMA_MODE === 'partitioned';

describe(`schema distributable by project_id (SCHEMA_MODE=${partitioned ? 'partitioned' : 'plain'})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('every primary key, unique index and foreign key of a project-scoped table includes project_id', async () => {
    expect(await checkDistributable(t.dataSource.manager)).toEqual([]);
  });

  it('project-scoped tables are partitioned, workspaces, projects, keys and console sessions plain', async () => {
    const rows: { name: string; kind: string; strategy: string | null }[] = await t.dataSource.query(
      `SELECT c.relname AS name, c.relkind AS kind, p.partstrat AS strategy
         FROM pg_class c
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'project_id' AND a.attnotnull
         LEFT JOIN pg_partitioned_table p ON p.partrelid = c.oid
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        ORDER BY c.relname`,
    );
    const scoped = rows.filter((r) => !REFERENCE_TABLES.includes(r.name));
    expect(scoped.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'deployments',
        'environments',
        'prompt_versions',
        'prompts',
        'provider_credentials',
        'thread_messages',
        'threads',
      ]),
    );
    const kinds: Record<string, string> = Object.fromEntries(
      await Promise.all(
        REFERENCE_TABLES.map(async (name) => [
          name,
          (await t.dataSource.query('SELECT relkind AS kind FROM pg_class WHERE oid = $1::regclass', [name]))[0].kind,
        ]),
      ),
    );
    expect(kinds).toEqual({ workspaces: 'r', projects: 'r', api_keys: 'r', console_sessions: 'r' });
    if (!partitioned) return;
    for (const table of scoped) {
      // By hash of project_id; request_logs once it is partitioned by time (its months) stays so.
      const strategies = table.name === 'request_logs' ? ['h', 'r'] : ['h'];
      expect({ table: table.name, kind: table.kind }).toEqual({ table: table.name, kind: 'p' });
      expect(strategies).toContain(table.strategy);
    }
  });

  (partitioned ? it : it.skip)(
    "PostgreSQL refuses a unique key without project_id, and rows land in their project's partition",
    async () => {
      await expect(t.dataSource.query('CREATE UNIQUE INDEX threads_id_only_key ON threads (id)')).rejects.toThrow(/partition/);
      const p = await createProject(t);
      const thread = await createThread(t, p);
      const [row] = await t.dataSource.query(
        'SELECT tableoid::regclass::text AS partition FROM threads WHERE project_id = $1 AND id = $2',
        [p.projectId, thread.id],
      );
      expect(row.partition).toMatch(/^threads_p[0-7]$/);
      const [expected] = await t.dataSource.query(
        `SELECT c.relname AS partition FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'threads'::regclass AND satisfies_hash_partition('threads'::regclass, 8, substr(c.relname, 10)::int, $1::uuid)`,
        [p.projectId],
      );
      expect(row.partition).toBe(expected.partition);
    },
  );
});
