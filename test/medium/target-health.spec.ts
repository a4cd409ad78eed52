import { newId } from '../../src/common/ids';
import { AppConfig } from '../../src/config/app-config';
import { ChangeNotifier } from '../../src/database/changes';
import { MetricsService } from '../../src/metrics/metrics.service';
import { HealthStore } from '../../src/routing/health-store';
import { SharedTargetHealth } from '../../src/routing/shared-target-health';
import type { TargetRef } from '../../src/routing/target-health';
import { createServiceContext, projectCaller, ServiceContext } from './service-context';

/**
 * Each assertion names its own target: the worker's database is shared with other files, whose
 * targets may be cooling down too.
 *
 * Health shared across replicas on a real database (docs/routing.md, "Health"): two
 * SharedTargetHealth instances on one database and one change notifier stand for two replicas (the
 * notification travels through the database either way: LISTEN on PostgreSQL, PGlite's own
 * listener in-process). The two-process version is test/routing-health-instances.serial.e2e-spec.ts.
 */
const COOLDOWN_MS = 1000;
const fail = { ok: false, reason: 'server_error', latencyMs: 3 } as const;
const ok = { ok: true, latencyMs: 40 } as const;

describe('SharedTargetHealth (medium tier)', () => {
  let ctx: ServiceContext;
  const made: SharedTargetHealth[] = [];

  beforeAll(async () => {
    ctx = await createServiceContext();
  });
  afterAll(async () => {
    for (const health of made) await health.flushed();
    await ctx.close();
  });

  /** A replica: its own memory, the one database and notifier; started as the application starts it. */
  const replica = async (metrics = new MetricsService()): Promise<SharedTargetHealth> => {
    const config = { routingCooldownMs: COOLDOWN_MS } as AppConfig;
    const health = new SharedTargetHealth(config, ctx.dataSource, ctx.get(ChangeNotifier), metrics);
    await health.onApplicationBootstrap();
    made.push(health);
    return health;
  };
  const targetOf = async (model = 'gpt-4o'): Promise<TargetRef> => ({
    projectId: (await projectCaller(ctx)).projectId,
    provider: 'primary',
    model,
  });
  const rowOf = async (t: TargetRef) =>
    (
      await ctx.dataSource.query(
        'SELECT trips, failures, reason, cooldown_until FROM routing_target_health WHERE project_id = $1 AND provider = $2 AND model = $3',
        [t.projectId, t.provider, t.model],
      )
    )[0] as { trips: number; failures: number; reason: string; cooldown_until: Date } | undefined;
  const until = async (check: () => boolean, boundMs = 1000): Promise<number> => {
    const start = Date.now();
    while (!check()) {
      if (Date.now() - start > boundMs) throw new Error(`not within ${boundMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return Date.now() - start;
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('a target tripped on one replica cools down on the other within 1 s, with one row written', async () => {
    const [a, b] = [await replica(), await replica()];
    const t = await targetOf();
    for (let i = 0; i < 3; i++) a.record(t, fail);
    expect(a.available(t)).toBe(false); // at once where it tripped
    const elapsed = await until(() => b.state.cooling(t));
    expect(elapsed).toBeLessThan(1000);
    expect(b.available(t)).toBe(false);
    expect(b.available({ ...t, model: 'gpt-4o-mini' })).toBe(true);
    expect(await rowOf(t)).toMatchObject({ trips: 1, failures: 3, reason: 'server_error' });
  });

  it('a storm of failures writes once per cooldown, and no call waits for the database', async () => {
    const [a] = [await replica()];
    const t = await targetOf();
    const write = jest.spyOn(HealthStore.prototype, 'write');
    try {
      const start = performance.now();
      for (let i = 0; i < 500; i++) a.record(t, fail);
      expect(performance.now() - start).toBeLessThan(50);
      await a.flushed();
      expect(write).toHaveBeenCalledTimes(1);
    } finally {
      write.mockRestore();
    }
  });

  it('is probed back once the cooldown ends: a success clears the row on every replica', async () => {
    const [a, b] = [await replica(), await replica()];
    const t = await targetOf();
    for (let i = 0; i < 3; i++) a.record(t, fail);
    await until(() => b.state.cooling(t));
    await sleep(COOLDOWN_MS + 20);
    expect(b.available(t)).toBe(true); // B's probe
    expect(b.available(t)).toBe(false); // the others wait for it
    b.record(t, ok);
    await b.flushed();
    expect(await rowOf(t)).toBeUndefined();
    // A hears of the recovery: it lets every call through, not just one probe of its own.
    await until(() => a.available(t) && a.available(t));
    expect(a.state.cooling(t)).toBe(false);
  });

  it('a failed probe trips again for twice as long, on every replica', async () => {
    const [a, b] = [await replica(), await replica()];
    const t = await targetOf();
    for (let i = 0; i < 3; i++) a.record(t, fail);
    await until(() => b.state.cooling(t));
    await sleep(COOLDOWN_MS + 20);
    expect(b.available(t)).toBe(true);
    b.record(t, fail);
    await b.flushed();
    const row = await rowOf(t);
    expect(row).toMatchObject({ trips: 2 });
    expect(new Date(row!.cooldown_until).getTime() - Date.now()).toBeGreaterThan(COOLDOWN_MS + 500);
    await until(() => a.state.cooling(t));
    expect(a.available(t)).toBe(false);
  });

  it('a replica that starts later reads the targets cooling down, and shows them in its gauge', async () => {
    const [a] = [await replica()];
    const t = await targetOf();
    for (let i = 0; i < 3; i++) a.record(t, fail);
    await a.flushed();
    const metrics = new MetricsService();
    const late = await replica(metrics);
    expect(late.available(t)).toBe(false);
    expect(await metrics.metrics()).toMatch(/^parley_routing_cooling_targets [1-9]\d*$/m);
  });

  it('sticks a thread to the target that served it: a replica that did not serve it reads its newest successful log once', async () => {
    const [a, b] = [await replica(), await replica()];
    const t = await targetOf();
    const threadId = newId();
    const log = (provider: string, status: number) =>
      ctx.dataSource.query(
        `INSERT INTO request_logs (project_id, id, thread_id, prompt_slug, kind, environment, url, stream, do_not_record, status,
                                   latency_ms, started_at, provider_name, model)
         VALUES ($1, $2, $3, 'chat', 'assistant', 'production', '/x', false, false, $4, 5, now(), $5, 'gpt-4o')`,
        [t.projectId, newId(), threadId, status, provider],
      );
    await log('primary', 200);
    await log('backup', 502); // a failed call served nothing
    a.served(t.projectId, threadId, { provider: 'primary', model: 'gpt-4o' });
    // Made before the spy: creating a project is not the reads this test counts.
    const stranger = (await projectCaller(ctx)).projectId;
    const query = jest.spyOn(ctx.dataSource, 'query');
    try {
      expect(await a.stickyTarget(t.projectId, threadId)).toEqual({ provider: 'primary', model: 'gpt-4o' });
      expect(query).not.toHaveBeenCalled();
      expect(await b.stickyTarget(t.projectId, threadId)).toEqual({ provider: 'primary', model: 'gpt-4o' });
      expect(await b.stickyTarget(t.projectId, threadId)).toEqual({ provider: 'primary', model: 'gpt-4o' });
      expect(query).toHaveBeenCalledTimes(1);
      b.served(t.projectId, threadId, { provider: 'backup', model: 'gpt-4o' });
      expect(await b.stickyTarget(t.projectId, threadId)).toEqual({ provider: 'backup', model: 'gpt-4o' });
      // Another project's caller naming this thread finds nothing (every read is scoped to the project).
      expect(await b.stickyTarget(stranger, threadId)).toBeUndefined();
      expect(await b.stickyTarget(t.projectId, 'not-a-uuid')).toBeUndefined();
      expect(query).toHaveBeenCalledTimes(2);
    } finally {
      query.mockRestore();
    }
  });
});
