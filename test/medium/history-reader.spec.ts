import { ProjectPrincipal } from '../../src/auth/principal';
import { newId } from '../../src/common/ids';
import { HistoryReader } from '../../src/messages/history-reader';
import { MessageStore } from '../../src/messages/message-store';
import { LIVE_HISTORIES_SQL } from '../../src/messages/messages.repository';
import { MessagesRepository } from '../../src/messages/messages.repository';
import { MessagesService } from '../../src/messages/messages.service';
import { ThreadsService } from '../../src/threads/threads.service';
import { createServiceContext, projectCaller, ServiceContext } from './service-context';

/** Concurrent invokes' history reads, batched (src/messages/history-reader.ts). */
describe('HistoryReader (medium tier)', () => {
  let ctx: ServiceContext;
  let caller: ProjectPrincipal;
  let other: ProjectPrincipal;
  let reader: HistoryReader;
  let threads: ThreadsService;
  let messages: MessagesService;
  let messageStore: MessageStore;

  beforeAll(async () => {
    ctx = await createServiceContext();
    reader = ctx.get(HistoryReader);
    threads = ctx.get(ThreadsService);
    messages = ctx.get(MessagesService);
    messageStore = ctx.get(MessageStore);
  });
  afterAll(() => ctx.close());
  beforeEach(async () => {
    caller = await projectCaller(ctx);
    other = await projectCaller(ctx);
  });

  const threadWith = async (owner: ProjectPrincipal, texts: string[]): Promise<string> => {
    const thread = await threads.create(owner, {});
    if (texts.length > 0) {
      await ctx.dataSource.transaction((manager) =>
        messageStore.appendTurns(
          manager,
          owner.projectId,
          thread.id,
          texts.map((text) => ({ content: [{ role: 'user', content: text }] })),
        ),
      );
    }
    return thread.id;
  };
  const textsOf = (turns: readonly { content: Record<string, unknown>[] }[] | null) =>
    turns && turns.map((turn) => turn.content[0].content);

  it("reads concurrent calls' histories in a few queries, each thread its own turns in order", async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        threadWith(
          caller,
          Array.from({ length: i }, (_, j) => `t${i}-${j}`),
        ),
      ),
    );
    const empty = await threadWith(other, []);
    const deleted = await threadWith(caller, ['gone']);
    await threads.delete(caller, deleted);
    const before = reader.stats.flushes;
    const asked = [
      ...ids.map((id) => ({ projectId: caller.projectId, id })),
      { projectId: caller.projectId, id: ids[3] }, // the same thread twice
      { projectId: other.projectId, id: empty },
      { projectId: caller.projectId, id: deleted },
      { projectId: caller.projectId, id: newId() },
      { projectId: other.projectId, id: ids[5] }, // another project's thread
    ];
    const read = await Promise.all(asked.map((a) => reader.read(a.projectId, a.id)));
    expect(reader.stats.flushes - before).toBeLessThan(asked.length / 2);
    ids.forEach((_, i) => expect(textsOf(read[i])).toEqual(Array.from({ length: i }, (_, j) => `t${i}-${j}`)));
    expect(read[2]!.map((turn) => turn.seq)).toEqual([1, 2]);
    expect(textsOf(read[12])).toEqual(textsOf(read[3]));
    expect(read[13]).toEqual([]);
    expect(read.slice(14)).toEqual([null, null, null]);
  });

  it("reads to their ends histories longer than a batch's share of a page (each read on from its first turns)", async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        threadWith(
          caller,
          Array.from({ length: 40 }, (_, j) => `t${i}-${j}`),
        ),
      ),
    );
    const read = await Promise.all(ids.map((id) => reader.read(caller.projectId, id)));
    ids.forEach((_, i) => expect(textsOf(read[i])).toEqual(Array.from({ length: 40 }, (_, j) => `t${i}-${j}`)));
  });

  it("reads a thread longer than one query's page to its end", async () => {
    const long = await threadWith(
      caller,
      Array.from({ length: 1203 }, (_, i) => `m${i}`),
    );
    const short = await threadWith(caller, ['only']);
    const [longTurns, shortTurns] = await Promise.all([reader.read(caller.projectId, long), reader.read(caller.projectId, short)]);
    expect(longTurns).toHaveLength(1203);
    expect(longTurns!.map((turn) => turn.seq)).toEqual(Array.from({ length: 1203 }, (_, i) => i + 1));
    expect(textsOf(shortTurns)).toEqual(['only']);
  });
  it('finds each thread of a batch by its key: the rows it reads from threads do not grow with the table', async () => {
    // 2,000 threads and no ANALYZE since: a table the planner has no statistics for (autovacuum off,
    // a fresh restore), where a plain join to the batch's keys was planned as a scan of every live thread.
    await ctx.dataSource.query(
      `INSERT INTO threads (project_id, id, metadata, create_log, last_seq, created_at)
       SELECT $1, gen_random_uuid(), '{}', '{}', 0, now() FROM generate_series(1, 2000)`,
      [caller.projectId],
    );
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => threadWith(caller, [`t${i}`])));
    const [{ 'QUERY PLAN': plan }] = await ctx.dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${LIVE_HISTORIES_SQL}`, [
      ids.map(() => caller.projectId),
      ids,
      32,
      ids.map(() => 0),
      ids.map(() => 0),
    ]);
    const readFromThreads: number[] = [];
    const walk = (node: Record<string, unknown>) => {
      if (node['Relation Name'] === 'threads' || String(node['Index Name'] ?? '').startsWith('threads_')) {
        readFromThreads.push(Number(node['Actual Rows']) * Number(node['Actual Loops']));
      }
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan);
    expect(readFromThreads.length).toBeGreaterThan(0);
    for (const rows of readFromThreads) expect(rows).toBeLessThanOrEqual(ids.length);
    const read = await Promise.all(ids.map((id) => reader.read(caller.projectId, id)));
    expect(read.map(textsOf)).toEqual(ids.map((_, i) => [`t${i}`]));
  });

  it('keeps one generic plan: executed as a prepared statement, it is not planned again for every batch', async () => {
    const ids = await Promise.all(Array.from({ length: 3 }, (_, i) => threadWith(caller, [`t${i}`])));
    const runner = ctx.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`PREPARE history_plan_probe AS ${LIVE_HISTORIES_SQL}`);
      // Batches of one and of three threads, as concurrent calls make them; after its first five
      // (custom) plans PostgreSQL keeps the generic one only if no custom plan looked cheaper.
      for (let run = 0; run < 10; run++) {
        const batch = ids.slice(0, run % 2 === 0 ? 1 : 3);
        const rows: { i: number; seq: number }[] = await runner.query(
          `EXECUTE history_plan_probe('{${batch.map(() => caller.projectId).join(',')}}', '{${batch.join(',')}}', 32, '{${batch.map(() => 0).join(',')}}', '{${batch.map(() => 0).join(',')}}')`,
        );
        expect(rows.map((row) => [Number(row.i), Number(row.seq)])).toEqual(batch.map((_, i) => [i + 1, 1]));
      }
      const [plans]: { generic_plans: string; custom_plans: string }[] = await runner.query(
        `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'history_plan_probe'`,
      );
      expect(Number(plans.custom_plans)).toBeLessThanOrEqual(5);
      expect(Number(plans.generic_plans)).toBeGreaterThanOrEqual(5);
    } finally {
      await runner.query('DEALLOCATE history_plan_probe').catch(() => undefined);
      await runner.release();
    }
  });

  describe('what it read before (HistoryCache)', () => {
    const appendTexts = (owner: ProjectPrincipal, threadId: string, texts: string[]) =>
      ctx.dataSource.transaction((manager) =>
        messageStore.appendTurns(
          manager,
          owner.projectId,
          threadId,
          texts.map((text) => ({ content: [{ role: 'user', content: text }] })),
        ),
      );
    /** Turns the database sent for each read, the rest coming from what the reader held. */
    const rowsSent = () => {
      const spy = jest.spyOn(ctx.get(MessagesRepository), 'liveHistories');
      return {
        turns: async () =>
          Promise.all(
            spy.mock.results.map(async (r) =>
              ((await r.value) as ({ turns: unknown[] } | null)[]).map((read) => read?.turns.length ?? null),
            ),
          ),
        restore: () => spy.mockRestore(),
      };
    };

    it('reads again only the turns appended since, by this instance or any other, and answers the whole history', async () => {
      const id = await threadWith(caller, ['a', 'b', 'c']);
      const sent = rowsSent();
      try {
        expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a', 'b', 'c']);
        // Appended through the database only, as another instance would: the reader is never told.
        await appendTexts(caller, id, ['d', 'e']);
        const second = await reader.read(caller.projectId, id);
        expect(textsOf(second)).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(second!.map((turn) => turn.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(await sent.turns()).toEqual([[3], [2], [0]]);
      } finally {
        sent.restore();
      }
    });

    it("keeps nothing of a history longer than one query's page: it is read whole again", async () => {
      const id = await threadWith(
        caller,
        Array.from({ length: 503 }, (_, i) => `m${i}`),
      );
      const sent = rowsSent();
      try {
        expect(await reader.read(caller.projectId, id)).toHaveLength(503);
        expect(await reader.read(caller.projectId, id)).toHaveLength(503);
        // Both reads answered whole by the database (its first page and the rest read on).
        expect(await sent.turns()).toEqual([[503], [503]]);
      } finally {
        sent.restore();
      }
    });

    it('reads the whole history again once a turn it holds was deleted, an item of one deleted or a compaction made or undone', async () => {
      const id = await threadWith(caller, ['a', 'b', 'c']);
      const seqOf = async (text: string): Promise<{ id: string }> =>
        (
          await ctx.dataSource.query(
            `SELECT id FROM thread_messages WHERE project_id = $1 AND thread_id = $2 AND content -> 0 ->> 'content' = $3`,
            [caller.projectId, id, text],
          )
        )[0];
      expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a', 'b', 'c']);

      await messages.delete(caller, id, (await seqOf('b')).id);
      expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a', 'c']);

      // An item of a turn deleted (/v1 conversation items): its one message, so the turn goes.
      const c = await seqOf('c');
      await messageStore.deleteItem(caller.projectId, id, c.id, '0:0', () => ['0:0']);
      expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a']);

      await appendTexts(caller, id, ['d']);
      expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a', 'd']);
      const compaction = await ctx.dataSource.transaction((manager) =>
        messageStore.appendCompaction(manager, caller.projectId, id, 5, { content: [{ role: 'user', content: 'summary' }] }),
      );
      expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['summary']);
      await messages.delete(caller, id, compaction.id);
      expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a', 'd']);

      await threads.delete(caller, id);
      expect(await reader.read(caller.projectId, id)).toBeNull();
    });

    it('hands out frozen turns, so that no request changes what the next one reads', async () => {
      const id = await threadWith(caller, ['a']);
      const turns = await reader.read(caller.projectId, id);
      expect(() => {
        (turns![0].content[0] as { content: string }).content = 'changed';
      }).toThrow(TypeError);
      expect(textsOf(await reader.read(caller.projectId, id))).toEqual(['a']);
    });
  });
});
