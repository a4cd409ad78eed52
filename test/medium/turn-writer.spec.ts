import { ProjectPrincipal } from '../../src/auth/principal';
import { ApiException } from '../../src/common/errors';
import { newId } from '../../src/common/ids';
import { TurnRecord, TurnWriter } from '../../src/invocation/turn-writer';
import { RequestLogEntity } from '../../src/request-logs/request-log.entity';
import { ResponseEntity } from '../../src/responses/response.entity';
import { ThreadsService } from '../../src/threads/threads.service';
import { createServiceContext, projectCaller, ServiceContext } from './service-context';

/** Group commit of invokes' turns on a real database (src/invocation/turn-writer.ts; docs/decisions.md). */
describe('TurnWriter (medium tier)', () => {
  let ctx: ServiceContext;
  let caller: ProjectPrincipal;
  let writer: TurnWriter;
  let threads: ThreadsService;

  beforeAll(async () => {
    ctx = await createServiceContext();
    writer = ctx.get(TurnWriter);
    threads = ctx.get(ThreadsService);
  });
  afterAll(() => ctx.close());
  beforeEach(async () => {
    caller = await projectCaller(ctx);
  });

  const logOf = (threadId: string | null): RequestLogEntity =>
    Object.assign(new RequestLogEntity(), {
      projectId: caller.projectId,
      id: newId(),
      threadId,
      promptSlug: 'helper',
      kind: 'assistant',
      environment: 'production',
      providerName: 'local',
      providerType: 'local',
      model: 'echo',
      url: '/v2/projects/x/y/assistants/helper/invoke',
      stream: false,
      doNotRecord: false,
      metadata: {},
      parameters: {},
      status: 200,
      error: null,
      latencyMs: 3,
      usagePartial: false,
      startedAt: new Date(),
    });

  const turn = (threadId: string, text: string, open = false): TurnRecord => {
    const log = logOf(threadId);
    return {
      log,
      thread: {
        id: threadId,
        createLog: open ? { opened: text } : null,
        turns: [
          { content: [{ role: 'user', content: `q ${text}` }], requestLogId: log.id },
          { content: [{ role: 'assistant', content: `a ${text}` }], requestLogId: log.id },
        ],
      },
      also: null,
      rows: null,
    };
  };

  /** A stored Response row, as /v1/responses gives one to write with its call (InvocationInput.recordRows). */
  const responseRows = (conversationId: string): TurnRecord['rows'] => ({
    target: ResponseEntity,
    rows: [
      Object.assign(new ResponseEntity(), {
        projectId: caller.projectId,
        id: newId(),
        previousResponseId: null,
        conversationId,
        input: [{ role: 'user', content: 'q' }],
        output: [{ role: 'assistant', content: 'a' }],
        body: { object: 'response', status: 'completed' },
        createdAt: new Date(),
        deletedAt: null,
      }),
    ],
  });
  const responseCount = async (ids: string[]): Promise<number> =>
    Number(
      (
        await ctx.dataSource.query('SELECT count(*)::int AS n FROM responses WHERE project_id = $1 AND id = ANY($2::uuid[])', [
          caller.projectId,
          ids,
        ])
      )[0].n,
    );

  const messagesOf = async (threadId: string): Promise<{ seq: number; text: string; log: string }[]> =>
    (
      await ctx.dataSource.query(
        'SELECT seq, content, request_log_id FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq',
        [caller.projectId, threadId],
      )
    ).map((r: { seq: number | string; content: { content: string }[]; request_log_id: string }) => ({
      seq: Number(r.seq),
      text: r.content[0].content,
      log: r.request_log_id,
    }));

  const logCount = async (ids: string[]): Promise<number> =>
    Number(
      (
        await ctx.dataSource.query('SELECT count(*)::int AS n FROM request_logs WHERE project_id = $1 AND id = ANY($2::uuid[])', [
          caller.projectId,
          ids,
        ])
      )[0].n,
    );

  it('writes concurrent calls on many threads in a few transactions, each call as one contiguous block', async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, async () => (await threads.create(caller, {})).id));
    const before = writer.stats;
    // Three calls on each thread at once: arriving together, they share batches (and a thread its reservation).
    const records = ids.flatMap((id) => [1, 2, 3].map((n) => turn(id, `${id.slice(-4)}-${n}`)));
    await Promise.all(records.map((record) => writer.write(record)));
    expect(writer.stats.flushes - before.flushes).toBeLessThan(records.length / 2);
    // Every batch in one round trip, its turns numbered back from the reservation: none written again.
    expect(writer.stats.twoTrips).toBe(before.twoTrips);
    for (const id of ids) {
      const rows = await messagesOf(id);
      expect(rows.map((row) => row.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      const tag = id.slice(-4);
      // Each call's two turns side by side, with its log; the calls in the order their batches
      // took the thread's lock (two batches may run at once on PostgreSQL).
      const blocks = [0, 2, 4].map((i) => [rows[i], rows[i + 1]]);
      for (const [question, answer] of blocks) {
        expect(answer.text).toBe(question.text.replace(/^q /, 'a '));
        expect(answer.log).toBe(question.log);
      }
      expect(blocks.map(([question]) => question.text).sort()).toEqual([`q ${tag}-1`, `q ${tag}-2`, `q ${tag}-3`]);
      expect(new Set(blocks.map(([question]) => question.log)).size).toBe(3);
    }
    expect(await logCount(records.map((r) => r.log.id))).toBe(records.length);
    const [{ last_seq }] = await ctx.dataSource.query('SELECT last_seq FROM threads WHERE project_id = $1 AND id = $2', [
      caller.projectId,
      ids[0],
    ]);
    expect(Number(last_seq)).toBe(6);
  });

  it('opens new threads in the batch, and a call on a deleted thread fails alone with the 404, leaving no log', async () => {
    const live = (await threads.create(caller, {})).id;
    const deleted = (await threads.create(caller, {})).id;
    await threads.delete(caller, deleted);
    const opened = newId();
    const records = [turn(live, 'live'), turn(deleted, 'gone'), turn(opened, 'new', true)].map((record) => ({
      ...record,
      rows: responseRows(record.thread!.id),
    }));
    const before = writer.stats.twoTrips;
    const results = await Promise.allSettled(records.map((record) => writer.write(record)));
    // The batch in one round trip failed on the deleted thread, and was written again in two.
    expect(writer.stats.twoTrips).toBeGreaterThan(before);
    // The surface's own rows are written with their call, in the same batch: not the failed call's.
    const responseIds = records.map((record) => record.rows!.rows[0].id as string);
    expect(await responseCount(responseIds)).toBe(2);
    expect(await responseCount([responseIds[1]])).toBe(0);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const reason = (results[1] as PromiseRejectedResult).reason as ApiException;
    expect(reason).toBeInstanceOf(ApiException);
    expect(reason.getStatus()).toBe(404);
    expect(reason.body).toEqual({ error: 'Thread not found' });
    expect(await logCount([records[1].log.id])).toBe(0);
    expect(await messagesOf(deleted)).toEqual([]);
    expect((await messagesOf(live)).map((row) => row.text)).toEqual(['q live', 'a live']);
    expect((await messagesOf(opened)).map((row) => row.seq)).toEqual([1, 2]);
    const [thread] = await ctx.dataSource.query('SELECT create_log FROM threads WHERE project_id = $1 AND id = $2', [
      caller.projectId,
      opened,
    ]);
    expect(thread.create_log).toEqual({ opened: 'new' });
  });

  it('a call whose own writes fail is rolled back alone: its neighbours are written, each once', async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, async () => (await threads.create(caller, {})).id));
    let attempts = 0;
    const records = ids.map((id, i) => ({
      ...turn(id, `t${i}`),
      also:
        i === 2
          ? async () => {
              attempts++;
              throw new Error('the response was cancelled meanwhile');
            }
          : null,
    }));
    const results = await Promise.allSettled(records.map((record) => writer.write(record)));
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual([
      'ok',
      'ok',
      'the response was cancelled meanwhile',
      'ok',
    ]);
    expect(attempts).toBeGreaterThanOrEqual(1);
    for (const [i, id] of ids.entries()) expect((await messagesOf(id)).map((row) => row.seq)).toEqual(i === 2 ? [] : [1, 2]);
    expect(await logCount(records.map((r) => r.log.id))).toBe(3);
    // The failed call's sequence numbers were rolled back with it: the thread's next append starts at 1.
    await writer.write(turn(ids[2], 'again'));
    expect((await messagesOf(ids[2])).map((row) => row.seq)).toEqual([1, 2]);
  });

  it('a batch whose statement fails mid-pipeline is rolled back whole, then written call by call: only the bad call fails', async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, async () => (await threads.create(caller, {})).id));
    // A Response row whose id is taken: its INSERT fails after the batch's logs and turns were sent.
    const first = { ...turn(ids[0], 'first'), rows: responseRows(ids[0]) };
    await writer.write(first);
    const taken = first.rows!.rows[0].id as string;
    const before = writer.stats;
    const records = ids.map((id, i) => {
      const rows = responseRows(id)!;
      if (i === 2) rows.rows[0].id = taken;
      return { ...turn(id, `t${i}`), rows };
    });
    const results = await Promise.allSettled(records.map((record) => writer.write(record)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    expect((await messagesOf(ids[0])).map((row) => row.seq)).toEqual([1, 2, 3, 4]);
    expect((await messagesOf(ids[2])).map((row) => row.seq)).toEqual([]);
    for (const i of [1, 3]) expect((await messagesOf(ids[i])).map((row) => row.text)).toEqual([`q t${i}`, `a t${i}`]);
    expect(await logCount(records.map((r) => r.log.id))).toBe(3);
    // On PostgreSQL every flush went pipelined (src/database/pipelined-transaction.ts), the failed ones
    // too (flushes counts the committed ones); PGlite has no pipeline.
    const pipelined = writer.stats.pipelined - before.pipelined;
    if (process.env.DATABASE_URL) expect(pipelined).toBeGreaterThan(writer.stats.flushes - before.flushes);
    else expect(pipelined).toBe(0);
    // Every connection went back to the pool out of its transaction: the next write on the bad call's thread starts at 1.
    await writer.write(turn(ids[2], 'again'));
    expect((await messagesOf(ids[2])).map((row) => row.seq)).toEqual([1, 2]);
  });

  it('a batch failing in its first statement (a thread opened twice) is rolled back, and no connection goes back to the pool inside it', async () => {
    const existing = (await threads.create(caller, {})).id;
    const ids = await Promise.all(Array.from({ length: 3 }, async () => (await threads.create(caller, {})).id));
    // Opening a thread that exists fails the batch's first statement (the threads INSERT); every statement after it fails too.
    const records = [turn(ids[0], 'a'), turn(existing, 'dup', true), turn(ids[1], 'b'), turn(ids[2], 'c')];
    const results = await Promise.allSettled(records.map((record) => writer.write(record)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(await logCount(records.map((r) => r.log.id))).toBe(3);
    // Queries on every connection of the pool at once: one left inside its failed transaction would refuse them.
    await Promise.all(Array.from({ length: 40 }, () => ctx.dataSource.query('SELECT 1')));
    await writer.write(turn(ids[0], 'more'));
    expect((await messagesOf(ids[0])).map((row) => row.seq)).toEqual([1, 2, 3, 4]);
  });
});
