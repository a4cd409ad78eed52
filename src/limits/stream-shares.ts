/**
 * Streaming work (pulling a chunk from the provider, framing it, writing it to the client) shared
 * between projects on one instance (docs/operations.md, "Fairness between projects").
 *
 * Without it a stream whose client keeps up never gives the event loop back: the socket accepts
 * every write at once, so the next chunk follows in the same run of promise callbacks, and one
 * stream of 20,000 chunks held the instance for ~120 ms while other projects' requests waited.
 *
 * Here a project's streams run in slices of `sliceMs`, one project per turn of the event loop,
 * projects taking turns in the order they started waiting, at most `streamsPerSlice` of the
 * project's waiting streams per slice (oldest first). Between two slices the event loop
 * serves everything else (other projects' requests, database answers, /health), so another
 * project waits at most one slice per turn of the loop it needs, however many streams a noisy
 * project runs: the noisy project's 100 streams share its one slice and slow themselves first.
 */
export class StreamShares {
  /** Waiting streams by project; the Map's order is the order projects get their next slice. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private slice: { projectId: string; endsAt: number } | undefined;
  private scheduled = false;

  constructor(
    private readonly sliceMs: number,
    private readonly streamsPerSlice: number,
  ) {}

  /**
   * Called before each chunk: undefined when the chunk may be handled now (the project's slice is
   * running), else a promise to await first. Returning undefined keeps the common case free of an
   * extra promise per chunk.
   */
  turn(projectId: string): Promise<void> | undefined {
    const slice = this.slice;
    if (slice && slice.projectId === projectId && performance.now() < slice.endsAt) return undefined;
    return new Promise<void>((resolve) => {
      const queue = this.waiting.get(projectId);
      if (queue) queue.push(resolve);
      else this.waiting.set(projectId, [resolve]);
      this.schedule();
    });
  }

  /** Projects with streams waiting for a slice (for tests and metrics). */
  get waitingProjects(): number {
    return this.waiting.size;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the poll phase: the I/O that arrived meanwhile is served first.
    setImmediate(() => this.next());
  }

  /** Opens the next waiting project's slice and lets its oldest waiting streams go on. */
  private next(): void {
    this.scheduled = false;
    const first = this.waiting.entries().next();
    if (first.done) {
      this.slice = undefined;
      return;
    }
    const [projectId, queue] = first.value;
    // Its streams that wait again queue behind the projects waiting now (round robin).
    this.waiting.delete(projectId);
    // A few streams per slice, each writing several chunks at once, cost far fewer socket writes
    // than all of them writing one chunk each; the others keep their place for the next slice.
    const released = queue.splice(0, this.streamsPerSlice);
    if (queue.length > 0) this.waiting.set(projectId, queue);
    this.slice = { projectId, endsAt: performance.now() + this.sliceMs };
    for (const resolve of released) resolve();
    if (this.waiting.size > 0) this.schedule();
  }
}
