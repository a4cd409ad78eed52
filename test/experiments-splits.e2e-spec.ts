import { Langtail } from 'langtail';
import OpenAI from 'openai';

import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const VERSION = 'x-parley-version';

/** Issue 42: weighted, sticky versions inside one deployment; the answer names the version that served it. */
describe('splits: several versions in one environment', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    for (const text of ['One.', 'Two.']) await deploy(t, p, { slug: 'greeter', template: [{ role: 'system', content: text }] });
    for (const text of ['One.', 'Two.'])
      await deploy(t, p, { slug: 'helper', kind: 'assistant', template: [{ role: 'system', content: text }] });
  });
  afterAll(() => t.close());

  const as = () => ({ 'X-API-Key': p.key });
  const split = (slug: string, body: object) => t.http().post(`/v2/prompts/${slug}/deployments`).set(as()).send(body);
  const invoke = (slug: string, body: object = {}, query = '') =>
    t
      .http()
      .post(`${invokePath(p, slug)}${query}`)
      .set(as())
      .send({ messages: [{ role: 'user', content: 'hi' }], ...body });

  /** Runs `count` calls, `concurrency` at a time; answers each call's served version. */
  async function versionsOf(count: number, call: (i: number) => Promise<number>, concurrency = 16): Promise<number[]> {
    const served: number[] = new Array(count);
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const i = next++;
          served[i] = await call(i);
        }
      }),
    );
    return served;
  }

  it('a split is a deployment: listed with its arms, audited, and refused when it names no version or mixes fields', async () => {
    const res = await split('greeter', {
      environment: 'production',
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
      stickyBy: 'none',
    }).expect(200);
    expect(res.body).toMatchObject({
      environment: 'production',
      version: 1,
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
      stickyBy: 'none',
      rules: [],
      current: true,
    });
    const listed = await t.http().get('/v2/deployments').query({ slug: 'greeter', environment: 'production' }).set(as()).expect(200);
    expect(listed.body.data[0].split).toEqual(res.body.split);
    const audit = await t.http().get('/v2/audit').query({ resourceType: 'deployment' }).set(as()).expect(200);
    expect(audit.body.data[0].after).toMatchObject({ prompt: 'greeter', split: res.body.split, stickyBy: 'none' });

    const bad = async (body: object, detail: RegExp) => {
      const r = await split('greeter', { environment: 'production', ...body }).expect(400);
      expect(r.body.error.details.join('\n')).toMatch(detail);
    };
    await bad(
      {
        split: [
          { version: 1, weight: 50 },
          { version: 9, weight: 50 },
        ],
      },
      /split\.1\.version: "greeter" has no version 9/,
    );
    await bad({ version: 1, split: [{ version: 1, weight: 1 }] }, /either `version` or `split`/);
    await bad({ version: 1, stickyBy: 'user' }, /stickyBy: applies to a split only/);
    await bad({ split: [{ version: 1, weight: 1 }], rules: [{ version: 2, user: 'qa' }] }, /rules\.0\.version: 2 is not an arm/);
    await bad({ split: [{ version: 1, weight: 0 }] }, /split/);
    await bad({ split: [{ version: 1, weight: 1 }], stickyBy: 'session' }, /stickyBy/);
    // Re-sending the same split changes nothing.
    const same = await split('greeter', {
      environment: 'production',
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
      stickyBy: 'none',
    }).expect(200);
    expect(same.body.deploymentVersion).toBe(res.body.deploymentVersion);
  });

  it('10,000 calls through the spec route land within 1.5 points of 90/10; the header and the log name the arm; ?v=N pins', async () => {
    const served = await versionsOf(10_000, async () => {
      const res = await invoke('greeter').expect(200);
      return Number(res.headers[VERSION]);
    });
    const share = (served.filter((v) => v === 2).length / served.length) * 100;
    expect(Math.abs(share - 10)).toBeLessThan(1.5);
    expect(new Set(served)).toEqual(new Set([1, 2]));
    const logs = (await requestLogRows(t, p.projectId)).filter((row) => row.prompt_slug === 'greeter');
    expect(logs).toHaveLength(10_000);
    expect(logs.filter((row) => row.version === 2)).toHaveLength(served.filter((v) => v === 2).length);
    // The experiment is the split deployment: every call logs its id and deployment version.
    expect(new Set(logs.map((row) => row.deployment_id)).size).toBe(1);
    for (let i = 0; i < 20; i += 1) expect((await invoke('greeter', {}, '?v=2').expect(200)).headers[VERSION]).toBe('2');
  }, 180_000);

  it('sticky by user (/v1 chat `user`, spec metadata.user) and by a metadata key: one key, one arm; a rule overrides the weights', async () => {
    await split('greeter', {
      environment: 'production',
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      stickyBy: 'user',
      rules: [{ version: 2, metadata: { tier: 'internal' } }],
    }).expect(200);
    const arms = new Set<string>();
    // 16 users on a 50/50 split: all on one arm has a chance of 2 in 65,536.
    for (const user of Array.from({ length: 16 }, (_, i) => `user-${i}`)) {
      const seen = new Set<string>();
      for (let i = 0; i < 3; i += 1) {
        const chat = await openai.chat.completions
          .create({ model: 'greeter@production', messages: [{ role: 'user', content: 'hi' }], user })
          .withResponse();
        seen.add(chat.response.headers.get(VERSION)!);
        seen.add((await invoke('greeter', { metadata: { user } }).expect(200)).headers[VERSION]);
      }
      expect(seen.size).toBe(1);
      arms.add([...seen][0]);
    }
    expect(arms).toEqual(new Set(['1', '2']));
    for (let i = 0; i < 10; i += 1) {
      const res = await invoke('greeter', { metadata: { user: `u-${i}`, tier: 'internal' } }).expect(200);
      expect(res.headers[VERSION]).toBe('2');
    }

    await split('greeter', {
      environment: 'production',
      split: [
        { version: 1, weight: 1 },
        { version: 2, weight: 1 },
      ],
      stickyBy: 'metadata.tenant',
    }).expect(200);
    const byTenant = new Map<string, string>();
    for (const tenant of ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark']) {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i += 1) seen.add((await invoke('greeter', { metadata: { tenant } }).expect(200)).headers[VERSION]);
      expect(seen.size).toBe(1);
      byTenant.set(tenant, [...seen][0]);
    }
    // The langtail SDK's calls follow the same split: each tenant's calls are logged under its arm.
    const langtail = new Langtail({ apiKey: p.key, baseURL: base });
    for (const tenant of byTenant.keys()) {
      for (let i = 0; i < 3; i += 1) {
        await langtail.prompts.invoke({
          prompt: 'greeter',
          environment: 'production',
          messages: [{ role: 'user', content: 'hi' }],
          metadata: { tenant },
        });
      }
    }
    const logged = (await requestLogRows(t, p.projectId)).filter((row) => row.url?.startsWith('/project-prompt/') && row.metadata?.tenant);
    expect(logged).toHaveLength(18);
    for (const row of logged) expect(String(row.version)).toBe(byTenant.get(row.metadata.tenant));
  });

  it('an assistant thread keeps its arm, and a conversation through /v1/responses keeps its arm', async () => {
    await split('helper', {
      environment: 'production',
      split: [
        { version: 1, weight: 1 },
        { version: 2, weight: 1 },
      ],
    }).expect(200);
    const arms = new Set<string>();
    // 16 threads on a 50/50 split: all on one arm has a chance of 2 in 65,536.
    for (let thread = 0; thread < 16; thread += 1) {
      const first = await invoke('helper').expect(200);
      const threadId = first.headers['x-parley-thread-id'];
      const version = first.headers[VERSION];
      for (let turn = 0; turn < 3; turn += 1) expect((await invoke('helper', { threadId }).expect(200)).headers[VERSION]).toBe(version);
      const logged = (await requestLogRows(t, p.projectId)).filter((row) => row.thread_id === threadId);
      expect(new Set(logged.map((row) => String(row.version)))).toEqual(new Set([version]));
      arms.add(version);
    }
    expect(arms).toEqual(new Set(['1', '2']));

    for (let c = 0; c < 4; c += 1) {
      const conversation = await openai.conversations.create();
      const seen = new Set<string>();
      for (let turn = 0; turn < 3; turn += 1) {
        const answer = await openai.responses
          .create({ model: 'helper@production', input: `turn ${turn}`, conversation: conversation.id })
          .withResponse();
        seen.add(answer.response.headers.get(VERSION)!);
      }
      expect(seen.size).toBe(1);
    }
  });

  it('promoting an arm is a plain deployment of its version; a plain deployment answers its one version', async () => {
    await split('greeter', { environment: 'production', version: 2 }).expect(200);
    for (let i = 0; i < 10; i += 1) expect((await invoke('greeter').expect(200)).headers[VERSION]).toBe('2');
    const listed = await t.http().get('/v2/deployments').query({ slug: 'greeter', environment: 'production' }).set(as()).expect(200);
    expect(listed.body.data[0]).toMatchObject({ version: 2, split: null, stickyBy: null });
  });

  it("every arm passes the environment's deploy gate: an arm that never ran there needs its evaluation", async () => {
    // v1 ran in staging before the gate existed (a version that served there passes it); v2 never did.
    await split('greeter', { environment: 'staging', version: 1 }).expect(200);
    await t.http().post('/v2/datasets').set(as()).send({ name: 'split-gate' }).expect(200);
    await t
      .http()
      .put('/v2/graders/split-exact')
      .set(as())
      .send({ config: { type: 'equals' } })
      .expect(200);
    await t
      .http()
      .put('/v2/environments/staging/gate')
      .set(as())
      .send({ dataset: 'split-gate', minScores: { 'split-exact': 1 } })
      .expect(200);
    const refused = await split('greeter', {
      environment: 'staging',
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
    }).expect(409);
    expect(refused.body.error.message).toBe('The deploy gate of "staging" refused greeter v2');
    const listed = await t.http().get('/v2/deployments').query({ slug: 'greeter', environment: 'staging' }).set(as()).expect(200);
    expect(listed.body.data[0]).toMatchObject({ version: 1, split: null });
    const audit = await t.http().get('/v2/audit').query({ action: 'deployment.gate_checked' }).set(as()).expect(200);
    expect(audit.body.data[0].after).toMatchObject({ outcome: 'refused', prompt: 'greeter', version: 2 });
  });
});
