import { ProjectGate } from './project-gate';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ProjectGate', () => {
  it('runs at most `max` tasks of one project at once, and never holds back another project', async () => {
    const gate = new ProjectGate(2);
    const running = { a: 0, b: 0 };
    const peak = { a: 0, b: 0 };
    const releases: (() => void)[] = [];
    const task = (project: 'a' | 'b') =>
      gate.run(project, async () => {
        running[project]++;
        peak[project] = Math.max(peak[project], running[project]);
        await new Promise<void>((resolve) => releases.push(resolve));
        running[project]--;
      });
    const all = [task('a'), task('a'), task('a'), task('a'), task('b')];
    await tick();
    expect(running).toEqual({ a: 2, b: 1 });
    while (releases.length > 0) {
      releases.shift()!();
      await tick();
      await tick();
    }
    await Promise.all(all);
    expect(peak).toEqual({ a: 2, b: 1 });
  });

  it('frees the slot when a task fails', async () => {
    const gate = new ProjectGate(1);
    await expect(gate.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('a', () => Promise.resolve(7))).resolves.toBe(7);
  });
});
