import { GroupCommit, ItemOutcome } from './group-commit';

interface Item {
  project: string;
  n: number;
  bad?: boolean;
  gone?: boolean;
}

function recorder(options: { maxInFlight?: number; maxBatch?: number; gather?: boolean } = {}) {
  const batches: Item[][] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const commit = new GroupCommit<Item>({
    maxInFlight: options.maxInFlight ?? 1,
    maxBatch: options.maxBatch ?? 100,
    gather: options.gather,
    flush: async (items) => {
      if (hold) await new Promise<void>((resolve) => (release = resolve));
      if (items.some((item) => item.bad) && items.length > 1) throw new Error('batch refused');
      if (items.length === 1 && items[0].bad) throw new Error(`item ${items[0].n} refused`);
      batches.push(items);
      return items.map((item): ItemOutcome => (item.gone ? { ok: false, error: new Error(`item ${item.n} gone`) } : { ok: true }));
    },
  });
  return {
    commit,
    batches,
    holdNext: () => (hold = true),
    releaseHeld: () => {
      hold = false;
      release?.();
    },
    submit: (item: Item) => commit.submit(item.project, item),
  };
}

const settle = (p: Promise<void>) =>
  p.then(
    () => 'ok',
    (err: Error) => err.message,
  );

describe('GroupCommit', () => {
  it('writes an item that finds nothing being written at once, the items arriving meanwhile as one batch after it', async () => {
    const r = recorder();
    const first = r.submit({ project: 'a', n: 1 });
    const more = [2, 3, 4].map((n) => r.submit({ project: 'a', n }));
    await Promise.all([first, ...more]);
    expect(r.batches.map((b) => b.map((i) => i.n))).toEqual([[1], [2, 3, 4]]);
    expect(r.commit.stats).toEqual({ flushes: 2, items: 4 });
  });

  it("with gather (PGlite), waits for the end of the turn even when idle: the turn's items go as one batch", async () => {
    const r = recorder({ gather: true });
    await Promise.all([1, 2, 3, 4].map((n) => r.submit({ project: 'a', n })));
    expect(r.batches.map((b) => b.map((i) => i.n))).toEqual([[1, 2, 3, 4]]);
    await r.submit({ project: 'a', n: 5 });
    expect(r.batches).toHaveLength(2);
  });

  it('resolves only once the batch is written, and batches what arrived while a flush was busy', async () => {
    const r = recorder();
    r.holdNext();
    const first = settle(r.submit({ project: 'a', n: 1 }));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3, 4].map((n) => settle(r.submit({ project: 'a', n })));
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(firstDone).toBe(false);
    r.releaseHeld();
    expect(await Promise.all([first, ...later])).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(r.batches.map((b) => b.map((i) => i.n))).toEqual([[1], [2, 3, 4]]);
  });

  it('takes waiting projects in turn: a project with many writes waiting delays another by one flush at most', async () => {
    const r = recorder({ maxBatch: 4 });
    r.holdNext();
    const first = r.submit({ project: 'noisy', n: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    const noisy = Array.from({ length: 12 }, (_, i) => r.submit({ project: 'noisy', n: i + 1 }));
    const quiet = r.submit({ project: 'quiet', n: 100 });
    r.releaseHeld();
    await Promise.all([first, ...noisy, quiet]);
    const batches = r.batches.map((b) => b.map((i) => i.n));
    expect(batches[0]).toEqual([0]);
    // The quiet project's write goes in the first batch after the busy one, not behind 12 others.
    expect(batches[1]).toContain(100);
    expect(batches[1]).toHaveLength(4);
    // And the noisy project's writes keep their order.
    expect(batches.flat().filter((n) => n !== 100)).toEqual(Array.from({ length: 13 }, (_, i) => i));
  });

  it('a batch that fails as a whole is written item by item: only the bad item fails', async () => {
    const r = recorder();
    const results = await Promise.all([1, 2, 3].map((n) => settle(r.submit({ project: 'a', n, bad: n === 2 }))));
    expect(results).toEqual(['ok', 'item 2 refused', 'ok']);
    expect(r.batches.map((b) => b.map((i) => i.n))).toEqual([[1], [3]]);
  });

  it('an item the flush reports failed is rejected, its neighbours resolved', async () => {
    const r = recorder();
    const results = await Promise.all([1, 2, 3].map((n) => settle(r.submit({ project: 'a', n, gone: n === 3 }))));
    expect(results).toEqual(['ok', 'ok', 'item 3 gone']);
    expect(r.batches.map((b) => b.map((i) => i.n))).toEqual([[1], [2, 3]]);
    expect(r.commit.stats).toEqual({ flushes: 2, items: 2 });
  });

  it('runs at most maxInFlight flushes at a time, and drain() waits for everything', async () => {
    let running = 0;
    let most = 0;
    const commit = new GroupCommit<number>({
      maxInFlight: 2,
      maxBatch: 1,
      flush: async (items) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
        return items.map(() => ({ ok: true as const }));
      },
    });
    for (let i = 0; i < 10; i++) void commit.submit('p', i);
    await commit.drain();
    expect(commit.busy).toBe(false);
    expect(commit.stats.items).toBe(10);
    expect(most).toBe(2);
  });
});
