import { createProject } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const admin = { 'X-API-Key': TEST_ADMIN_KEY };

/** Replace-style writes (issue 40, item 5): concurrent replaces all succeed and one of them wins whole. */
describe('replace-style writes under concurrency', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('80 concurrent PUT prices of different sets on one project all answer 200 and leave exactly one of the sets', async () => {
    const p = await createProject(t);
    const path = `/v2/workspaces/${p.workspace}/projects/${p.project}/prices`;
    // Overlapping (provider, model) pairs of different sizes; set i is told apart by its rates.
    const sets = Array.from({ length: 80 }, (_, i) =>
      Array.from({ length: 2 + (i % 5) }, (_, j) => ({
        provider: j % 2 === 0 ? 'oai' : 'ant',
        model: `model-${j}`,
        inputPerMTok: i,
        outputPerMTok: i + 0.5,
      })),
    );
    const answers = await Promise.all(sets.map((prices) => t.http().put(path).set(admin).send({ prices })));
    expect(answers.map((res) => res.status).filter((status) => status !== 200)).toEqual([]);

    const key = (o: { provider: string; model: string; inputPerMTok: string; outputPerMTok: string }) =>
      `${o.provider}/${o.model}@${o.inputPerMTok}/${o.outputPerMTok}`;
    const expected = sets.map((set) =>
      set.map((o) => key({ ...o, inputPerMTok: String(o.inputPerMTok), outputPerMTok: String(o.outputPerMTok) })).sort(),
    );
    // Each answer shows the set that request wrote.
    answers.forEach((res, i) => expect(res.body.prices.map(key).sort()).toEqual(expected[i]));

    const rows: { provider_name: string; model: string; input: string; output: string }[] = await t.dataSource.query(
      'SELECT provider_name, model, input_per_mtok::text AS input, output_per_mtok::text AS output FROM price_overrides WHERE project_id = $1',
      [p.projectId],
    );
    const stored = rows
      .map((r) => key({ provider: r.provider_name, model: r.model, inputPerMTok: r.input, outputPerMTok: r.output }))
      .sort();
    const winners = expected.filter((set) => JSON.stringify(set) === JSON.stringify(stored));
    expect(winners).toHaveLength(1);
    expect(new Set(stored).size).toBe(stored.length);
    const listed = await t.http().get(path).set(admin).expect(200);
    expect(listed.body.prices.map(key).sort()).toEqual(stored);
  });

  it('40 concurrent PUT provider-credentials of one new name all answer 200 (create or replace) and leave one row', async () => {
    const p = await createProject(t);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t
          .http()
          .put('/v2/provider-credentials/racer')
          .set('X-API-Key', p.key)
          .send({ type: 'openai', baseUrl: `http://127.0.0.1:${9000 + i}/v1` }),
      ),
    );
    expect(answers.map((res) => res.status).filter((status) => status !== 200)).toEqual([]);
    const rows: { id: string; base_url: string }[] = await t.dataSource.query(
      'SELECT id, base_url FROM provider_credentials WHERE project_id = $1 AND name = $2',
      [p.projectId, 'racer'],
    );
    expect(rows).toHaveLength(1);
    expect(new Set(answers.map((res) => res.body.id))).toEqual(new Set([rows[0].id]));
  });
});
