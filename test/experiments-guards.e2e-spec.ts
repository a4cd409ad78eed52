import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { openaiCompletion, openaiError, openaiJson, RecordedRequest } from './fakes/fake-openai-upstream';
import { FakeUpstream, startFakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const VERSION = 'x-parley-version';
const RESPONSE_EVENTS = ['response.completed', 'response.failed', 'response.cancelled', 'response.incomplete'];

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An OpenAI-compatible upstream that answers every `failEvery`-th chat completion with a 500 it asks not to retry (0: never). */
async function upstream(failEvery: number): Promise<FakeUpstream & { calls: () => number }> {
  let calls = 0;
  const fake = await startFakeUpstream((req: RecordedRequest) => {
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return openaiError(404, `No route ${req.path}`);
    calls += 1;
    if (failEvery > 0 && calls % failEvery === 0) return openaiError(500, 'flaky upstream', { 'x-should-retry': 'false' });
    return openaiJson(openaiCompletion({ content: 'ok', model: req.body.model }));
  });
  return Object.assign(fake, { calls: () => calls });
}

/**
 * Guards of a split (docs/experiments.md, "Guards"): the new arm's version runs on an upstream that
 * fails every 5th call (20 %), the control's on one that never fails; the checker runs every 100 ms.
 * Once the arm has its calls, the guard stops it: the weight is 0, every call goes to the control,
 * the audit trail and a signed webhook say why, and deploying the previous split again restores it.
 * A feedback guard trips on the arm's thumbs-down the same way.
 */
describe('guards of a split', () => {
  let t: TestApp;
  let p: TestProject;
  let steady: Awaited<ReturnType<typeof upstream>>;
  let flaky: Awaited<ReturnType<typeof upstream>>;
  let receiver: http.Server;
  let receiverUrl: string;
  let secret: string;
  let defaultHookId: string;
  const received: Received[] = [];

  const as = () => ({ 'X-API-Key': p.key });
  const deployBody = (slug: string, body: object) => t.http().post(`/v2/prompts/${slug}/deployments`).set(as()).send(body);
  const current = async (slug: string) =>
    (await t.http().get('/v2/deployments').query({ slug, environment: 'production' }).set(as()).expect(200)).body.data[0];
  const invoke = (slug: string) =>
    t
      .http()
      .post(invokePath(p, slug))
      .set(as())
      .send({ messages: [{ role: 'user', content: 'hi' }] });
  const guardEvents = async (slug: string) =>
    (
      await t
        .http()
        .get('/v2/audit')
        .query({ action: 'deployment.guard_tripped', resourceId: `${slug}@production` })
        .set(as())
        .expect(200)
    ).body.data;
  /** The signed deliveries of guard events about `slug`, parsed. */
  const deliveredAbout = (slug: string) =>
    received.filter((r) => r.path === '/guards').filter((r) => JSON.parse(r.body).data.prompt === slug);
  const signatureOf = (r: Received) =>
    `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`)
      .digest('base64')}`;

  /** Runs `step` (4 at a time) until `done` holds, checking it every 10 steps; fails after `limit` steps. */
  async function until(done: () => Promise<boolean>, step: () => Promise<void>, limit = 3000): Promise<number> {
    for (let steps = 0; steps < limit; steps += 10) {
      if (await done()) return steps;
      await Promise.all(Array.from({ length: 10 }, step));
    }
    throw new Error(`still not done after ${limit} steps`);
  }

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part) => parts.push(part));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    [steady, flaky] = await Promise.all([upstream(0), upstream(5)]);
    t = await createTestApp({ ...INVOKE_APP_ENV, PARLEY_GUARD_INTERVAL_MS: '100', PROVIDER_MAX_RETRIES: '0' });
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'steady', type: 'openai', baseUrl: `${steady.url}/v1`, apiKey: 'sk-steady' });
    await addProviderCredential(t, p, { name: 'flaky', type: 'openai', baseUrl: `${flaky.url}/v1`, apiKey: 'sk-flaky' });
    await deploy(t, p, { slug: 'reply', provider: 'steady', model: 'gpt-4o', template: [{ role: 'system', content: 'Control.' }] });
    await deploy(t, p, { slug: 'reply', provider: 'flaky', model: 'gpt-4o', template: [{ role: 'system', content: 'New arm.' }] });
    for (const text of ['One.', 'Two.'])
      await deploy(t, p, { slug: 'helper', provider: 'steady', template: [{ role: 'system', content: text }] });
    const hook = await t
      .http()
      .post('/v2/webhooks')
      .set(as())
      .send({ url: `${receiverUrl}/guards`, events: ['deployment.guard_tripped'] })
      .expect(200);
    expect(hook.body.events).toEqual(['deployment.guard_tripped']);
    secret = hook.body.secret;
    // A webhook made without `events` keeps getting only the responses' events.
    const plain = await t
      .http()
      .post('/v2/webhooks')
      .set(as())
      .send({ url: `${receiverUrl}/default` })
      .expect(200);
    expect(plain.body.events).toEqual(RESPONSE_EVENTS);
    defaultHookId = plain.body.id;
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await Promise.all([steady.close(), flaky.close()]);
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('guards go with a split only, each checked at its path; stored with defaults, part of what makes a split the same', async () => {
    const split = [
      { version: 1, weight: 50 },
      { version: 2, weight: 50 },
    ];
    const bad = async (body: object, detail: RegExp) => {
      const res = await deployBody('helper', { environment: 'production', ...body }).expect(400);
      expect(res.body.error.message).toBe('Invalid request body');
      expect(res.body.error.details.join('\n')).toMatch(detail);
    };
    await bad({ version: 1, guards: [{ metric: 'error_rate', maxIncrease: 2 }] }, /^guards: applies to a split only$/m);
    await bad({ split, guards: [{ metric: 'error_rate', maxIncrease: 101 }] }, /guards\.0\.maxIncrease: Expected percentage points/);
    await bad({ split, guards: [{ metric: 'latency', maxIncrease: 2 }] }, /guards\.0\.metric: Expected a guard/);
    await bad({ split, guards: [{ metric: 'feedback', name: 'Not A Name', min: 0.5 }] }, /guards\.0\.name: Expected a feedback name/);
    await bad({ split, guards: [{ metric: 'error_rate', maxIncrease: 2, minCalls: 0 }] }, /guards\.0\.minCalls/);
    await bad({ split, guards: [{ metric: 'error_rate', maxIncrease: 2, window: '1h' }] }, /guards\.0: Unrecognized key: "window"/);
    await bad({ split, guards: Array.from({ length: 11 }, () => ({ metric: 'error_rate', maxIncrease: 2 })) }, /at most 10 guards/);
    await bad({ split, guards: 'strict' }, /guards/);
    expect((await current('helper')).guards).toBeNull();

    const guards = [{ metric: 'feedback', name: 'helpful', min: 0.9 }];
    const first = await deployBody('helper', { environment: 'production', split, stickyBy: 'none', guards }).expect(200);
    expect(first.body.guards).toEqual([{ metric: 'feedback', name: 'helpful', min: 0.9, minCount: 30 }]);
    expect((await current('helper')).guards).toEqual(first.body.guards);
    const same = await deployBody('helper', { environment: 'production', split, stickyBy: 'none', guards: first.body.guards }).expect(200);
    expect(same.body.deploymentVersion).toBe(first.body.deploymentVersion);
    // Other guards make another deployment; none at all ([] is none) another again.
    const other = await deployBody('helper', { environment: 'production', split, stickyBy: 'none', guards: [] }).expect(200);
    expect(other.body).toMatchObject({ deploymentVersion: first.body.deploymentVersion + 1, guards: null });
    const audit = await t.http().get('/v2/audit').query({ action: 'deployment.created', resourceId: 'helper@production' }).set(as());
    expect(audit.body.data[0]).toMatchObject({ before: { guards: first.body.guards }, after: { split } });
    expect(audit.body.data[0].after.guards).toBeUndefined();
    expect(audit.body.data[1]).toMatchObject({ after: { split, guards: first.body.guards } });
  });

  it('an arm failing 20 % of its calls against a control that never fails is stopped on its guard, audited and sent to the webhook', async () => {
    const split = [
      { version: 1, weight: 50 },
      { version: 2, weight: 50 },
    ];
    const guards = [{ metric: 'error_rate', maxIncrease: 2, minCalls: 50 }];
    const started = await deployBody('reply', { environment: 'production', split, stickyBy: 'none', guards }).expect(200);
    const served: Record<string, number> = {};
    await until(
      async () => (await current('reply')).split[1].weight === 0,
      async () => {
        const res = await invoke('reply');
        expect([200, 502]).toContain(res.status);
        // A failed call's answer names no version: only the new arm's upstream fails.
        const by = res.status === 200 ? res.headers[VERSION] : 'failed';
        served[by] = (served[by] ?? 0) + 1;
      },
    );
    expect(flaky.calls()).toBeGreaterThanOrEqual(50);
    expect(served['2'] + served.failed).toBe(flaky.calls());
    expect(served.failed).toBe(Math.floor(flaky.calls() / 5));
    const stopped = await current('reply');
    expect(stopped).toMatchObject({
      deploymentVersion: started.body.deploymentVersion + 1,
      version: 1,
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 0 },
      ],
      stickyBy: 'none',
      guards: [{ metric: 'error_rate', maxIncrease: 2, minCalls: 50 }],
    });
    const before = flaky.calls();
    for (let i = 0; i < 40; i++) {
      const res = await invoke('reply').expect(200);
      expect(res.headers[VERSION]).toBe('1');
    }
    expect(flaky.calls()).toBe(before);

    // One event, by the server itself, with the figures the guard read.
    const [event, ...more] = await guardEvents('reply');
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      actor: { kind: 'system', keyId: null, keyName: null },
      resourceType: 'deployment',
      resourceId: 'reply@production',
      before: { deploymentId: started.body.id, deploymentVersion: started.body.deploymentVersion, split },
      after: { deploymentId: stopped.id, deploymentVersion: stopped.deploymentVersion, split: stopped.split, version: 2, guard: guards[0] },
    });
    const { arm, control, increasePoints } = event.after.figures;
    expect(arm.version).toBe(2);
    expect(arm.calls).toBeGreaterThanOrEqual(50);
    expect(Math.abs(arm.errors - arm.calls / 5)).toBeLessThanOrEqual(1);
    expect(control).toMatchObject({ version: 1, errors: 0, errorRate: control.calls > 0 ? 0 : null });
    expect(increasePoints).toBeCloseTo((arm.errors / arm.calls) * 100, 3);
    expect(event.after.reason).toMatch(/^v2's error rate is \d+\.\d points above v1's .*; the guard allows 2$/);
    const created = await t.http().get('/v2/audit').query({ action: 'deployment.created', resourceId: 'reply@production' }).set(as());
    expect(created.body.data[0]).toMatchObject({ actor: { kind: 'system' }, after: { split: stopped.split, guards } });

    // The webhook that asked for it gets the event, signed; the one made without `events` gets nothing.
    for (let i = 0; deliveredAbout('reply').length === 0 && i < 200; i++) await sleep(50);
    const [delivery] = deliveredAbout('reply');
    expect(delivery.headers['webhook-signature']).toBe(signatureOf(delivery));
    expect(JSON.parse(delivery.body)).toMatchObject({
      id: delivery.headers['webhook-id'],
      object: 'event',
      type: 'deployment.guard_tripped',
      data: {
        prompt: 'reply',
        environment: 'production',
        version: 2,
        replacedDeploymentId: started.body.id,
        deploymentId: stopped.id,
        guard: guards[0],
        figures: event.after.figures,
        reason: event.after.reason,
      },
    });
    expect(received.filter((r) => r.path === '/default')).toEqual([]);
    const [{ count }] = await t.dataSource.query(
      'SELECT count(*)::int AS count FROM webhook_deliveries WHERE project_id = $1 AND webhook_id = $2',
      [p.projectId, defaultHookId],
    );
    expect(count).toBe(0);

    // Rollback: deploying the split as it was restores it, and the calls counted before it do not stop it again.
    const history = await t.http().get('/v2/prompts/reply/deployments').query({ environment: 'production' }).set(as()).expect(200);
    const previous = history.body.data.find((d: { id: string }) => d.id === started.body.id);
    const restored = await deployBody('reply', {
      environment: 'production',
      split: previous.split,
      stickyBy: previous.stickyBy,
      rules: previous.rules,
      guards: previous.guards,
    }).expect(200);
    expect(restored.body).toMatchObject({ deploymentVersion: stopped.deploymentVersion + 1, split, guards });
    await sleep(1000); // ten checks
    expect(await current('reply')).toMatchObject({ id: restored.body.id, split });
    const versions = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const res = await invoke('reply');
      versions.add(res.status === 200 ? res.headers[VERSION] : 'failed');
    }
    versions.delete('failed');
    expect(versions).toEqual(new Set(['1', '2']));
    expect(await guardEvents('reply')).toHaveLength(1);
  }, 120_000);

  it("a feedback guard stops the arm whose 'helpful' mean falls below its bound", async () => {
    const split = [
      { version: 1, weight: 50 },
      { version: 2, weight: 50 },
    ];
    const guards = [
      { metric: 'error_rate', maxIncrease: 5, minCalls: 1000 },
      { metric: 'feedback', name: 'helpful', min: 0.5, minCount: 10 },
    ];
    await deployBody('helper', { environment: 'production', split, stickyBy: 'none', guards }).expect(200);
    await until(
      async () => (await current('helper')).split[1].weight === 0,
      async () => {
        const res = await invoke('helper').expect(200);
        // The control is helpful, the new arm is not.
        const value = res.headers[VERSION] === '1';
        await t.http().post('/v2/feedback').set(as()).send({ logId: res.headers['x-parley-log-id'], name: 'helpful', value }).expect(201);
      },
      1000,
    );
    const [event] = await guardEvents('helper');
    expect(event).toMatchObject({ actor: { kind: 'system' }, after: { version: 2, guard: { metric: 'feedback', name: 'helpful' } } });
    expect(event.after.figures.arm).toMatchObject({ version: 2, name: 'helpful', mean: 0 });
    expect(event.after.figures.arm.n).toBeGreaterThanOrEqual(10);
    expect(event.after.reason).toMatch(/^v2's mean "helpful" is 0 over \d+ scores, below the guard's 0\.5$/);
    for (let i = 0; deliveredAbout('helper').length === 0 && i < 200; i++) await sleep(50);
    expect(JSON.parse(deliveredAbout('helper')[0].body).data).toMatchObject({ prompt: 'helper', version: 2, figures: event.after.figures });
  }, 120_000);
});
