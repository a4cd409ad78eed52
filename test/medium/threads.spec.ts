import { ProjectPrincipal } from '../../src/auth/principal';
import { ApiException } from '../../src/common/errors';
import { MessagesService } from '../../src/messages/messages.service';
import { ThreadsService } from '../../src/threads/threads.service';
import { createServiceContext, projectCaller, ServiceContext } from './service-context';

/** Thread and message rules on a real database, without HTTP (docs/testing.md, medium tier). */
describe('threads and messages services (medium tier)', () => {
  let ctx: ServiceContext;
  let caller: ProjectPrincipal;
  let threads: ThreadsService;
  let messages: MessagesService;

  beforeAll(async () => {
    ctx = await createServiceContext();
    threads = ctx.get(ThreadsService);
    messages = ctx.get(MessagesService);
  });
  afterAll(() => ctx.close());
  beforeEach(async () => {
    caller = await projectCaller(ctx);
  });

  const seqs = async (threadId: string): Promise<number[]> =>
    (await ctx.dataSource.query('SELECT seq FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq', [caller.projectId, threadId])).map(
      (r: { seq: string | number }) => Number(r.seq),
    );

  it('appends 30 concurrent messages to one thread as one contiguous sequence', async () => {
    const thread = await threads.create(caller, {});
    await Promise.all(Array.from({ length: 30 }, (_, i) => messages.create(caller, thread.id, { message: { role: 'user', content: `m${i}` } })));
    expect(await seqs(thread.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('appends several turns at once as one block', async () => {
    const thread = await threads.create(caller, {});
    await messages.create(caller, thread.id, { message: { role: 'user', content: 'first' } });
    await ctx.dataSource.transaction((manager) =>
      messages.appendTurns(manager, caller.projectId, thread.id, [
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
});
