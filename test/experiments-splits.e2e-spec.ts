import { Langtail } from 'langtail';
import OpenAI from 'openai';

import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, listen, requestLogRows } from './support/invoke-factories';
import {
  expectArmsLogged,
  oneArmPerKey,
  onEverySurface,
  Served,
  splitBody,
  splitSurfaces,
  SurfaceCall,
  SURFACES,
} from './support/split-surfaces';
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

  it('sticky by user (/v1 chat `user`, spec metadata.user) and by a metadata key: one key, one arm; a rule overrides the weights', async () => {
    await split(
      'greeter',
      splitBody([1, 2], [50, 50], { stickyBy: 'user', rules: [{ version: 2, metadata: { tier: 'internal' } }] }),
    ).expect(200);
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

    await split('greeter', splitBody([1, 2], [1, 1], { stickyBy: 'metadata.tenant' })).expect(200);
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
    await split('helper', splitBody([1, 2], [1, 1])).expect(200);
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

  it('on every surface, a thread (a conversation on /v1/responses) keeps its arm, whichever surface continues it', async () => {
    await split('helper', splitBody([1, 2], [1, 1])).expect(200);
    const surfaces = splitSurfaces(base, p);
    const served = await oneArmPerKey(async (_key, k) => {
      // Started on one surface, then continued on all four in order (a thread's turns are sequential).
      const first = await surfaces[SURFACES[k % SURFACES.length]]({ slug: 'helper' });
      const turns = [first];
      for (const surface of SURFACES) turns.push(await surfaces[surface]({ slug: 'helper', thread: first.thread! }));
      expect(new Set(turns.map((turn) => turn.thread))).toEqual(new Set([first.thread]));
      return turns;
    });
    await expectArmsLogged(t, p.projectId, served);
  });

  it('on every surface, one `user` keeps one arm on new threads (the spec routes: `user` or `metadata.user`)', async () => {
    await split('helper', splitBody([1, 2], [1, 1], { stickyBy: 'user' })).expect(200);
    const surfaces = splitSurfaces(base, p);
    const served = await oneArmPerKey((user, k) =>
      onEverySurface(surfaces, [
        { slug: 'helper', user, userIn: k % 2 ? 'metadata' : 'body' },
        { slug: 'helper', user },
      ]),
    );
    await expectArmsLogged(t, p.projectId, served);
  });

  it('on every surface, one value of a metadata key keeps one arm (the SDK sends it as x-langtail-metadata-* headers)', async () => {
    await split('helper', splitBody([1, 2], [1, 1], { stickyBy: 'metadata.tenant' })).expect(200);
    const surfaces = splitSurfaces(base, p);
    const served = await oneArmPerKey((tenant) =>
      onEverySurface(surfaces, [
        { slug: 'helper', metadata: { tenant } },
        { slug: 'helper', metadata: { tenant, other: 'x' } },
      ]),
    );
    await expectArmsLogged(t, p.projectId, served);
  });

  // Below, the control takes every weight: a call the other arm serves was sent there by the rule or the pin, not by chance.

  it('on every surface, a matching rule (a `user`, a metadata field) overrides the weights', async () => {
    const rules = [
      { version: 2, metadata: { tier: 'internal' } },
      { version: 2, user: 'qa-bot' },
    ];
    await split('helper', splitBody([1, 2], [100, 0], { stickyBy: 'user', rules })).expect(200);
    const calls: Array<[Omit<SurfaceCall, 'slug'>, number]> = [
      [{}, 1],
      [{ metadata: { tier: 'internal' } }, 2],
      [{ metadata: { tier: 'external' } }, 1],
      [{ user: 'qa-bot' }, 2],
      [{ user: 'qa-bot', userIn: 'metadata' }, 2],
    ];
    const served = await onEverySurface(
      splitSurfaces(base, p),
      calls.map(([call]) => ({ slug: 'helper', ...call })),
    );
    expect(served.map((s) => s.version)).toEqual(SURFACES.flatMap(() => calls.map(([, version]) => version)));
    await expectArmsLogged(t, p.projectId, served);
  });

  it("on every surface, a pin bypasses the split (?v=N, <slug>@<env>:<n>, prompt.version, the SDK's version), streamed or not", async () => {
    const surfaces = splitSurfaces(base, p);
    const served: Served[] = [];
    for (const control of [1, 2]) {
      const other = 3 - control;
      await split('helper', splitBody([control, other], [100, 0])).expect(200);
      for (const surface of SURFACES) {
        const unpinned = await surfaces[surface]({ slug: 'helper' });
        const calls = [
          unpinned,
          await surfaces[surface]({ slug: 'helper', pin: other }),
          // A pinned turn of a thread the split put on the control.
          await surfaces[surface]({ slug: 'helper', pin: other, thread: unpinned.thread! }),
          await surfaces[surface]({ slug: 'helper', stream: true }),
          await surfaces[surface]({ slug: 'helper', pin: other, stream: true }),
        ];
        expect([surface, ...calls.map((c) => c.version)]).toEqual([surface, control, other, other, control, other]);
        served.push(...calls);
      }
      // /v1/responses also takes the version as `prompt.version`.
      const conversation = await openai.conversations.create();
      const byPrompt = await openai.responses
        .create({ prompt: { id: 'helper@production', version: String(other) }, input: 'hi', conversation: conversation.id })
        .withResponse();
      expect(byPrompt.response.headers.get(VERSION)).toBe(String(other));
    }
    await expectArmsLogged(t, p.projectId, served);
    // The spec route's ?v=N under a 90/10 split drawn per call.
    await split('greeter', splitBody([1, 2], [90, 10], { stickyBy: 'none' })).expect(200);
    for (let i = 0; i < 20; i += 1) expect((await invoke('greeter', {}, '?v=2').expect(200)).headers[VERSION]).toBe('2');
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
