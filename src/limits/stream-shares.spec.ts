import { StreamShares } from './stream-shares';

/** Busy for `ms`: the synchronous work of one chunk. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** A stream that asks for its turn before each of `chunks` chunks, as the invocation core does. */
async function stream(shares: StreamShares, project: string, chunks: number, done: Record<string, number>): Promise<void> {
  for (let i = 0; i < chunks; i++) {
    const wait = shares.turn(project);
    if (wait) await wait;
    spin(0.02);
    done[project] = (done[project] ?? 0) + 1;
  }
}

describe('StreamShares', () => {
  it('gives the event loop back between slices: timers run while streams never wait for I/O', async () => {
    const shares = new StreamShares(2, 8);
    const done: Record<string, number> = {};
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const streams = Array.from({ length: 20 }, () => stream(shares, 'a', 500, done));
    await Promise.all(streams);
    clearInterval(timer);
    expect(done.a).toBe(10_000);
    // About 200 ms of chunk work in 1 ms slices: the 1 ms timer ran between them (without slices
    // it would not run at all until every stream had ended). Counted, not timed: the machine is shared.
    expect(ticks).toBeGreaterThanOrEqual(20);
  });

  it("shares the time between projects, not between streams: one project's 20 streams get about what another's single stream gets", async () => {
    const shares = new StreamShares(2, 8);
    const done: Record<string, number> = {};
    let aWhenBEnded = 0;
    const noisy = Array.from({ length: 20 }, () => stream(shares, 'a', 2000, done));
    await stream(shares, 'b', 2000, done).then(() => (aWhenBEnded = done.a));
    await Promise.all(noisy);
    expect(done).toEqual({ a: 40_000, b: 2000 });
    // Slices alternate between the two projects: a did about as much as b meanwhile (not 20 times more).
    expect(aWhenBEnded).toBeGreaterThan(2000 / 2);
    expect(aWhenBEnded).toBeLessThan(2000 * 2);
  });

  it('lets at most `streamsPerSlice` waiting streams of a project go on per slice, oldest first', async () => {
    const shares = new StreamShares(1000, 2);
    const resumed: number[] = [];
    const waits = [0, 1, 2, 3, 4].map((i) => shares.turn('a')!.then(() => resumed.push(i)));
    // Another project starts waiting meanwhile: its slice comes before a's next one.
    const b = shares.turn('b')!.then(() => resumed.push(10));
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    await tick();
    expect(resumed).toEqual([0, 1]);
    // Within the open slice the project's streams go on without waiting.
    expect(shares.turn('a')).toBeUndefined();
    await tick();
    expect(resumed).toEqual([0, 1, 10]);
    await tick();
    expect(resumed).toEqual([0, 1, 10, 2, 3]);
    await Promise.all([...waits, b]);
    expect(resumed).toEqual([0, 1, 10, 2, 3, 4]);
  });
});
