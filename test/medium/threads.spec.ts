import { EntityManager } from 'typeorm';

import { ProjectPrincipal } from '../../src/auth/principal';
import { ApiException } from '../../src/common/errors';
import { MessageStore } from '../../src/messages/message-store';
import { MessagesService } from '../../src/messages/messages.service';
import { ThreadStore } from '../../src/threads/thread-store';
import { ThreadsService } from '../../src/threads/threads.service';
import { createServiceContext, projectCaller, ServiceContext } from './service-context';

/** Thread and message rules on a real database, without HTTP (docs/testing.md, medium tier). */
describe('threads and messages services (medium tier)', () => {
  let ctx: ServiceContext;
  let caller: ProjectPrincipal;
  let threads: ThreadsService;
  let messages: MessagesService;
  let threadStore: ThreadStore;
  let messageStore: MessageStore;

  beforeAll(async () => {
    ctx = await createServiceContext();
    threads = ctx.get(ThreadsService);
    messages = ctx.get(MessagesService);
    threadStore = ctx.get(ThreadStore);
    messageStore = ctx.get(MessageStore);
  });
  afterAll(() => ctx.close());
  beforeEach(async () => {
    caller = await projectCaller(ctx);
  });

  const seqs = async (threadId: string): Promise<number[]> =>
    (
      await ctx.dataSource.query('SELECT seq FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq', [
        caller.projectId,
        threadId,
      ])
    ).map((r: { seq: string | number }) => Number(r.seq));

  it('appends 30 concurrent messages to one thread as one contiguous sequence', async () => {
    const thread = await threads.create(caller, {});
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => messages.create(caller, thread.id, { message: { role: 'user', content: `m${i}` } })),
    );
    expect(await seqs(thread.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('appends several turns at once as one block', async () => {
    const thread = await threads.create(caller, {});
    await messages.create(caller, thread.id, { message: { role: 'user', content: 'first' } });
    await ctx.dataSource.transaction((manager) =>
      messageStore.appendTurns(manager, caller.projectId, thread.id, [
        { content: [{ role: 'user', content: 'q' }] },
        { content: [{ role: 'assistant', content: 'a' }] },
      ]),
    );
    expect(await seqs(thread.id)).toEqual([1, 2, 3]);
  });

  it('refuses a message for a deleted thread and writes nothing', async () => {
    const thread = await threads.create(caller, {});
    await threads.delete(caller, thread.id);
    const error = await messages.create(caller, thread.id, { message: { role: 'user', content: 'late' } }).catch((e: unknown) => e);
    expect((error as ApiException).getStatus()).toBe(404);
    expect(await seqs(thread.id)).toEqual([]);
  });

  it("treats another project's thread as not found", async () => {
    const thread = await threads.create(caller, {});
    const other = await projectCaller(ctx);
    const error = await messages.create(other, thread.id, { message: { role: 'user', content: 'intrusion' } }).catch((e: unknown) => e);
    expect((error as ApiException).getStatus()).toBe(404);
    expect(await seqs(thread.id)).toEqual([]);
  });
  it("reserves a batch's sequence numbers thread by thread: the rows it reads from threads do not grow with the table", async () => {
    // As in history-reader.spec.ts: 2,000 threads the planner has no statistics for.
    await ctx.dataSource.query(
      `INSERT INTO threads (project_id, id, metadata, create_log, last_seq, created_at)
       SELECT $1, gen_random_uuid(), '{}', '{}', 0, now() FROM generate_series(1, 2000)`,
      [caller.projectId],
    );
    const live = await Promise.all(Array.from({ length: 5 }, () => threads.create(caller, {})));
    const deleted = await threads.create(caller, {});
    await threads.delete(caller, deleted.id);
    const demands = [...live, deleted].map((t, i) => ({ projectId: caller.projectId, id: t.id, count: i + 1 }));
    // This backend's counts not yet reported (pg_stat_xact_user_tables): rows fetched through an
    // index or read by a scan; nothing is reported inside a transaction, so the difference is exact.
    const readSoFar = async (manager: EntityManager) =>
      Number(
        (
          await manager.query(
            `SELECT seq_tup_read + coalesce(idx_tup_fetch, 0) AS read FROM pg_stat_xact_user_tables WHERE relname = 'threads'`,
          )
        )[0]?.read ?? 0,
      );
    const { firsts, read } = await ctx.dataSource.transaction(async (manager) => {
      const before = await readSoFar(manager);
      const firsts = await threadStore.reserveSequences(manager, demands);
      return { firsts, read: (await readSoFar(manager)) - before };
    });
    expect(read).toBeLessThanOrEqual(demands.length * 2);
    expect([...firsts.entries()]).toEqual(live.map((t) => [`${caller.projectId}/${t.id}`, 1]));
    const again = await ctx.dataSource.transaction((manager) => threadStore.reserveSequences(manager, demands.slice(0, 2)));
    expect([...again.values()]).toEqual([2, 3]);
  });
  it('a batch reservation that fails rejects, and its transaction keeps no number taken', async () => {
    const live = await threads.create(caller, {});
    // Not a uuid: PostgreSQL (and PGlite) refuse the statement; the other thread's reservation goes with it.
    const demands = [
      { projectId: caller.projectId, id: live.id, count: 2 },
      { projectId: caller.projectId, id: 'not-a-uuid', count: 1 },
    ];
    await expect(ctx.dataSource.transaction((manager) => threadStore.reserveSequences(manager, demands))).rejects.toThrow(/uuid/);
    const [row] = await ctx.dataSource.query('SELECT last_seq FROM threads WHERE project_id = $1 AND id = $2', [caller.projectId, live.id]);
    expect(Number(row.last_seq)).toBe(0);
  });
});
