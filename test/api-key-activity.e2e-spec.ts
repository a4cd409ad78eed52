import { newId } from '../src/common/ids';
import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * GET /v2/workspaces/{workspace}/projects/{project}/api-keys with each key's spend today and this
 * month, its budgets and its last use (docs/usage.md, "Keys: spend and last use"): priced calls
 * made through the invoke API with two keys, and older rollups as a longer history would have left
 * them; the numbers agree with the request logs and the limits set, from one query that reads the
 * rollups and never the logs.
 */
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

describe("a project's keys with their spend, budgets and last use", () => {
  let t: TestApp;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  let second: { id: string; key: string };
  let revoked: { id: string };

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    const base = `/v2/workspaces/${p.workspace}/projects/${p.project}`;
    second = (await t.http().post(`${base}/api-keys`).set(admin).send({ name: 'second' }).expect(200)).body;
    revoked = (await t.http().post(`${base}/api-keys`).set(admin).send({ name: 'gone' }).expect(200)).body;
    await t.http().delete(`${base}/api-keys/${revoked.id}`).set(admin).expect(200);
    // The local provider counts words as tokens: a dollar per thousand of them gives every call a cost.
    await t
      .http()
      .put(`${base}/prices`)
      .set(admin)
      .send({ prices: [{ provider: 'local', model: 'echo', inputPerMTok: 1000, outputPerMTok: 1000 }] })
      .expect(200);
    await t
      .http()
      .put(`${base}/limits`)
      .set(admin)
      .send({ project: {}, keys: { budgetUsdPerDay: 5, budgetUsdPerMonth: 50.5 } })
      .expect(200);
    await t.http().put(`${base}/api-keys/${second.id}/limits`).set(admin).send({ budgetUsdPerDay: 2 }).expect(200);
    await deploy(t, p, { slug: 'ask' });
    for (const [key, text] of [
      [p.key, 'one two three'],
      [p.key, 'four five'],
      [second.key, 'six'],
    ]) {
      await t
        .http()
        .post(`/${p.workspace}/${p.project}/ask/production`)
        .set('X-API-Key', key)
        .send({ messages: [{ role: 'user', content: text }] })
        .expect(200);
    }
  });
  afterAll(() => t.close());

  const list = async (key: Record<string, string> = admin) =>
    (await t.http().get(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`).set(key).expect(200)).body.data as Array<
      Record<string, unknown> & { id: string }
    >;
  const byId = (rows: Array<Record<string, unknown> & { id: string }>, id: string) => rows.find((row) => row.id === id)!;
  /** What the logs say a key spent since `from` (the test's check; the endpoint never reads them). */
  const loggedSpend = async (keyId: string, from: Date): Promise<number> => {
    const [{ usd }] = await t.dataSource.query(
      'SELECT coalesce(sum(cost_usd), 0)::float8 AS usd FROM request_logs WHERE project_id = $1 AND api_key_id = $2 AND started_at >= $3',
      [p.projectId, keyId, from],
    );
    return usd;
  };
  /** A rollup row as the group commit writes it, for an hour (and its day) of an older history. */
  const rollup = async (keyId: string, hour: Date, costUsd: string, daily: boolean) => {
    const table = daily ? 'usage_rollups_daily' : 'usage_rollups';
    const time = daily ? new Date(Math.floor(hour.getTime() / DAY_MS) * DAY_MS) : hour;
    await t.dataSource.query(
      `INSERT INTO ${table} (project_id, id, ${daily ? 'day' : 'hour'}, prompt_slug, version, environment, model, provider_name, api_key_id,
         calls, errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
         output_tokens, cost_usd, latency_buckets)
       VALUES ($1, $2, $3, 'ask', 1, 'production', 'echo', 'local', $4, 1, 0, 0, 0, 1, 0, 0, 0, 1, $5, $6)`,
      [p.projectId, newId(), time, keyId, costUsd, new Array(32).fill(0)],
    );
  };

  it("answers each key's spend today and this month, its budgets and the hour it was last used", async () => {
    const now = Date.now();
    const today = new Date(Math.floor(now / DAY_MS) * DAY_MS);
    const monthStart = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1));
    const currentHour = new Date(Math.floor(now / HOUR_MS) * HOUR_MS).toISOString();
    // History: the day before today (this month's unless today is the 1st), last month, and the revoked key two days ago.
    const yesterday = new Date(today.getTime() - DAY_MS + 5 * HOUR_MS);
    const lastMonth = new Date(monthStart.getTime() - DAY_MS + 3 * HOUR_MS);
    await rollup(p.keyId, yesterday, '1.25', true);
    await rollup(p.keyId, yesterday, '1.25', false);
    await rollup(p.keyId, lastMonth, '7', true);
    const twoDaysAgo = new Date(Math.floor((now - 2 * DAY_MS) / HOUR_MS) * HOUR_MS);
    await rollup(revoked.id, twoDaysAgo, '0.5', false);
    await rollup(revoked.id, twoDaysAgo, '0.5', true);

    const rows = await list();
    expect(rows.map((row) => row.id).sort()).toEqual([p.keyId, second.id, revoked.id].sort());
    const first = byId(rows, p.keyId);
    const firstToday = await loggedSpend(p.keyId, today);
    expect(firstToday).toBeGreaterThan(0);
    const yesterdayThisMonth = yesterday >= monthStart ? 1.25 : 0;
    expect(first).toMatchObject({
      name: 'test',
      revokedAt: null,
      lastUsedAt: currentHour,
      budgetUsdPerDay: '5',
      budgetUsdPerMonth: '50.5',
    });
    expect(Number(first.spendTodayUsd)).toBeCloseTo(firstToday, 9);
    expect(Number(first.spendMonthUsd)).toBeCloseTo(firstToday + yesterdayThisMonth, 9);
    // Exact decimals, as the budgets' are: no trailing zeros, no float noise.
    expect(first.spendTodayUsd).toMatch(/^\d+(\.\d*[1-9])?$/);

    const other = byId(rows, second.id);
    const secondToday = await loggedSpend(second.id, today);
    expect(secondToday).toBeGreaterThan(0);
    // Its own day budget, the project's default for keys for the month.
    expect(other).toMatchObject({ lastUsedAt: currentHour, budgetUsdPerDay: '2', budgetUsdPerMonth: '50.5' });
    expect(Number(other.spendTodayUsd)).toBeCloseTo(secondToday, 9);
    expect(Number(other.spendMonthUsd)).toBeCloseTo(secondToday, 9);

    const gone = byId(rows, revoked.id);
    const twoDaysAgoThisMonth = twoDaysAgo >= monthStart ? '0.5' : '0';
    expect(gone).toMatchObject({
      revokedAt: expect.any(String),
      lastUsedAt: twoDaysAgo.toISOString(),
      spendTodayUsd: '0',
      spendMonthUsd: twoDaysAgoThisMonth,
    });
    expect(Object.keys(first).sort()).toEqual(
      [
        'budgetUsdPerDay',
        'budgetUsdPerMonth',
        'createdAt',
        'environments',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
        'projectId',
        'revokedAt',
        'scopes',
        'spendMonthUsd',
        'spendTodayUsd',
      ].sort(),
    );
  });

  it('reads the whole list in one query of the rollups, none of the request logs, whatever the number of keys', async () => {
    const spy = jest.spyOn(t.dataSource, 'query');
    try {
      await list();
      const sql = spy.mock.calls.map(([text]) => String(text));
      expect(sql.filter((text) => text.includes('api_keys'))).toHaveLength(1);
      expect(sql.filter((text) => text.includes('usage_rollups'))).toHaveLength(1);
      expect(sql.filter((text) => text.includes('request_logs'))).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('a key with keys:manage lists its own project with the same fields; without budgets they are null', async () => {
    const fresh = await createProject(t);
    const rows = await list({ 'X-API-Key': p.key });
    expect(byId(rows, second.id)).toMatchObject({ budgetUsdPerDay: '2' });
    const own = (
      await t.http().get(`/v2/workspaces/${fresh.workspace}/projects/${fresh.project}/api-keys`).set('X-API-Key', fresh.key).expect(200)
    ).body.data;
    expect(own).toEqual([
      expect.objectContaining({
        id: fresh.keyId,
        lastUsedAt: null,
        spendTodayUsd: '0',
        spendMonthUsd: '0',
        budgetUsdPerDay: null,
        budgetUsdPerMonth: null,
      }),
    ]);
  });
});
