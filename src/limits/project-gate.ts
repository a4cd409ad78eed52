/**
 * At most `max` database tasks of one project at a time, so that one project's burst (hundreds of
 * streams ending together) queues behind its own share of the pool instead of taking every
 * connection (docs/security.md, "Limits"). Waiting here holds no connection.
 */
export class ProjectGate {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly max: number) {}

  async run<T>(projectId: string, task: () => Promise<T>): Promise<T> {
    await this.enter(projectId);
    try {
      return await task();
    } finally {
      this.leave(projectId);
    }
  }

  private enter(projectId: string): Promise<void> {
    const running = this.running.get(projectId) ?? 0;
    if (running < this.max) {
      this.running.set(projectId, running + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(projectId) ?? [];
      queue.push(resolve);
      this.waiting.set(projectId, queue);
    });
  }

  private leave(projectId: string): void {
    const next = this.waiting.get(projectId)?.shift();
    if (next) {
      // The slot passes straight to the next task of the same project.
      next();
      return;
    }
    this.waiting.delete(projectId);
    const running = (this.running.get(projectId) ?? 1) - 1;
    if (running > 0) this.running.set(projectId, running);
    else this.running.delete(projectId);
  }
}
