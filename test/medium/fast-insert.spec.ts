import { ProjectPrincipal } from '../../src/auth/principal';
import { newId } from '../../src/common/ids';
import { fastInsert, insertOf } from '../../src/database/fast-insert';
import { ThreadMessageEntity } from '../../src/messages/thread-message.entity';
import { ThreadEntity } from '../../src/threads/thread.entity';
import { createServiceContext, projectCaller, ServiceContext } from './service-context';

/** The invoke path's INSERTs (src/database/fast-insert.ts), on a real database. */
describe('fastInsert (medium tier)', () => {
  let ctx: ServiceContext;
  let caller: ProjectPrincipal;

  beforeAll(async () => {
    ctx = await createServiceContext();
    caller = await projectCaller(ctx);
  });
  afterAll(() => ctx.close());

  const thread = (fields: Partial<ThreadEntity> = {}): ThreadEntity =>
    Object.assign(new ThreadEntity(), {
      projectId: caller.projectId,
      id: newId(),
      metadata: {},
      createLog: {},
      lastSeq: 0,
      createdAt: new Date(),
      deletedAt: null,
      ...fields,
    });
  const stored = async (ids: string[]) =>
    (
      await ctx.dataSource.query(
        `SELECT id, metadata, create_log, last_seq, created_at, deleted_at FROM threads WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY array_position($2::uuid[], id)`,
        [caller.projectId, ids],
      )
    ).map((row: Record<string, unknown>) => ({ ...row, last_seq: Number(row.last_seq) }));

  it('sends a batch column by column: one statement text whatever the number of rows', () => {
    const manager = ctx.dataSource.manager;
    const one = insertOf(manager, ThreadEntity, [thread()]);
    const five = insertOf(
      manager,
      ThreadEntity,
      Array.from({ length: 5 }, () => thread()),
    );
    expect(five.sql).toBe(one.sql);
    expect(one.sql).toContain('FROM ROWS FROM (unnest($1::uuid[]), unnest($2::uuid[]), jsonb_array_elements($3::jsonb)');
    expect(five.parameters).toHaveLength(7);
    // One parameter per column: an array of the five rows' values (a jsonb column's as one JSON text).
    const lengths = five.parameters.map((column) => (Array.isArray(column) ? column : JSON.parse(column as string)).length);
    expect(lengths).toEqual([5, 5, 5, 5, 5, 5, 5]);
  });

  it('stores every value as given: JSON with quotes, backslashes, braces and non-ASCII text, NULLs, timestamps', async () => {
    const at = new Date('2026-11-28T05:06:07.123Z');
    const rows = [
      thread({
        metadata: { note: 'a "quoted" \\ back\\slash, {braces}, [brackets]' },
        createLog: { text: 'naïve — 東京 🚀', list: [1, null, '2'] as unknown as string },
        lastSeq: 3,
        createdAt: at,
      }),
      thread({ createLog: { nested: { deep: ['x', { y: 'z' }] } }, deletedAt: at, createdAt: at }),
      thread({ metadata: { empty: '' }, createLog: {}, lastSeq: 2147483647, createdAt: at }),
    ];
    await fastInsert(ctx.dataSource.manager, ThreadEntity, rows);
    expect(await stored(rows.map((r) => r.id))).toEqual(
      rows.map((r) => ({
        id: r.id,
        metadata: r.metadata,
        create_log: r.createLog,
        last_seq: r.lastSeq,
        created_at: at,
        deleted_at: r.deletedAt,
      })),
    );
  });

  it('leaves a column every row leaves undefined to its DEFAULT, and a column some rows leave undefined to its DEFAULT in those rows only', async () => {
    const all = [thread({ metadata: undefined, lastSeq: undefined }), thread({ metadata: undefined, lastSeq: undefined })];
    await fastInsert(ctx.dataSource.manager, ThreadEntity, all);
    expect((await stored(all.map((r) => r.id))).map((r: Record<string, unknown>) => [r.metadata, r.last_seq])).toEqual([
      [{}, 0],
      [{}, 0],
    ]);
    const mixed = [thread({ metadata: undefined }), thread({ metadata: { kept: 'yes' } })];
    await fastInsert(ctx.dataSource.manager, ThreadEntity, mixed);
    expect((await stored(mixed.map((r) => r.id))).map((r: Record<string, unknown>) => r.metadata)).toEqual([{}, { kept: 'yes' }]);
  });
  it('stores a null of a nullable jsonb column as NULL, and JSON arrays and strings as themselves', async () => {
    const owner = thread();
    await fastInsert(ctx.dataSource.manager, ThreadEntity, [owner]);
    const message = (seq: number, deletedItems: string[] | null, content: unknown): ThreadMessageEntity =>
      Object.assign(new ThreadMessageEntity(), {
        projectId: caller.projectId,
        id: newId(),
        threadId: owner.id,
        seq,
        content,
        metadata: {},
        requestLogId: null,
        createdAt: new Date(),
        deletedAt: null,
        deletedItems,
        compactedBy: null,
      });
    await fastInsert(ctx.dataSource.manager, ThreadMessageEntity, [
      message(1, null, [{ role: 'user', content: 'x' }]),
      message(2, ['0:1'], ['just', 'strings']),
    ]);
    const rows = await ctx.dataSource.query(
      `SELECT seq, content, deleted_items, deleted_items IS NULL AS sql_null FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq`,
      [caller.projectId, owner.id],
    );
    expect(rows.map((r: Record<string, unknown>) => [Number(r.seq), r.content, r.deleted_items, r.sql_null])).toEqual([
      [1, [{ role: 'user', content: 'x' }], null, true],
      [2, ['just', 'strings'], ['0:1'], false],
    ]);
  });

  it("computes a column from the row's other values when asked (its own statement text), and refuses rows that leave different columns undefined", async () => {
    const manager = ctx.dataSource.manager;
    // last_seq from the metadata's "n", as a computed column names the others.
    const computed = {
      key: 'seq-from-metadata',
      expressions: (column: (p: string) => string) => ({ lastSeq: `(${column('metadata')} ->> 'n')::int * 10` }),
    };
    const rows = [thread({ metadata: { n: 4 } }), thread({ metadata: { n: 7 } })];
    expect(insertOf(manager, ThreadEntity, rows, computed).sql).not.toBe(insertOf(manager, ThreadEntity, rows).sql);
    await fastInsert(manager, ThreadEntity, rows, computed);
    expect((await stored(rows.map((r) => r.id))).map((r: Record<string, unknown>) => r.last_seq)).toEqual([40, 70]);
    const mixed = [thread({ metadata: undefined }), thread({ metadata: { n: 1 } })];
    expect(() => insertOf(manager, ThreadEntity, mixed, computed)).toThrow(/computed columns need every row to give the same columns/);
  });
});
