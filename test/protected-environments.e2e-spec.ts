import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { verifyWebhook } from '../src/webhooks/webhook-signature';
import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { addPerson, Person } from './support/person-fixtures';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

const OWN_APPROVAL = 'You cannot approve your own deployment request';
const KEYS_CANNOT_DECIDE = 'Only a person signed in can approve or reject a deployment request: API keys cannot';
const barred = (environment: string) =>
  `API keys may not deploy to "${environment}" (a protected environment): a person signed in deploys there, or asks to`;

/**
 * A protected production (docs/security.md, "Approvals"), with people as fixtures (users and
 * memberships by SQL, sessions through ConsoleSessionsService.startForUser): A's deploy waits as a
 * pending request (no deployment row; calls keep the old version); A cannot approve it, a viewer
 * and a key cannot either; B approves and production serves the new version; B's rejection
 * deploys nothing; keys are refused where barred and wait like people elsewhere; the approval
 * meets the deploy gate; `parley apply` holds its deploys the same way; every step reaches a
 * loopback webhook receiver, signed, and the audit trail names A and B.
 */
describe('protected environments and deployment requests', () => {
  let t: TestApp;
  let p: TestProject;
  let a: Person;
  let b: Person;
  let viewer: Person;
  let admin: Person;
  let receiver: http.Server;
  let secret: string;
  const received: Received[] = [];

  const key = () => ({ 'X-API-Key': p.key });
  const as = (who: Person | { 'X-API-Key': string }) => ('headers' in who ? who.headers : who);
  const deployAs = (who: Person | { 'X-API-Key': string }, slug: string, body: object) =>
    t.http().post(`/v2/prompts/${slug}/deployments`).set(as(who)).send(body);
  const decide = (who: Person | { 'X-API-Key': string }, id: string, decision: 'approve' | 'reject' | 'cancel', body: object = {}) =>
    t.http().post(`/v2/deployment-requests/${id}/${decision}`).set(as(who)).send(body);
  const protect = (body: object) => t.http().put('/v2/environments/production/protection').set(admin.headers).send(body);
  /** The version production serves: the `x-parley-version` header of a real call. */
  const served = async (slug: string) =>
    Number(
      (
        await t
          .http()
          .post(invokePath(p, slug))
          .set(key())
          .send({ messages: [{ role: 'user', content: 'hi' }] })
          .expect(200)
      ).headers['x-parley-version'],
    );
  const deploymentRows = async (slug: string) =>
    (
      await t.dataSource.query(
        `SELECT count(*)::int AS n FROM deployments d JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
          WHERE d.project_id = $1 AND p.slug = $2`,
        [p.projectId, slug],
      )
    )[0].n as number;
  const requestRow = async (id: string) =>
    (
      await t.dataSource.query(
        'SELECT status, requested_by_user_id, decided_by_user_id FROM deployment_requests WHERE project_id = $1 AND id = $2',
        [p.projectId, id],
      )
    )[0];
  /**
   * The signed events about request `id` the receiver got, by the order of their steps (deliveries
   * may arrive in any order); waits (bounded) for `count` of them.
   */
  async function eventsAbout(id: string, count: number) {
    const step = (type: string) => ['created', 'approved', 'rejected', 'cancelled'].indexOf(type.replace('deployment_request.', ''));
    for (let i = 0; i < 100; i++) {
      const about = received
        .map((r) => ({ ...r, event: JSON.parse(r.body) }))
        .filter((r) => r.event.data.id === id)
        .sort((x, y) => step(x.event.type) - step(y.event.type));
      if (about.length >= count) return about;
      await sleep(100);
    }
    throw new Error(`fewer than ${count} webhook events about ${id}`);
  }

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part) => parts.push(part));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(parts).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    [a, b, viewer, admin] = [
      await addPerson(t.app, p, 'deployer', 'ana'),
      await addPerson(t.app, p, 'deployer', 'ben'),
      await addPerson(t.app, p, 'viewer', 'vic'),
      await addPerson(t.app, p, 'admin', 'ada'),
    ];
    for (const text of ['One.', 'Two.', 'Three.']) await deploy(t, p, { slug: 'greet', template: [{ role: 'system', content: text }] });
    await deploy(t, p, { slug: 'greet', template: [{ role: 'system', content: 'Four.' }], environments: [] });
    await deploy(t, p, { slug: 'other', template: [{ role: 'system', content: 'A.' }] });
    await deploy(t, p, { slug: 'other', template: [{ role: 'system', content: 'B.' }], environments: [] });
    const hook = await t
      .http()
      .post('/v2/webhooks')
      .set(key())
      .send({
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        events: [
          'deployment_request.created',
          'deployment_request.approved',
          'deployment_request.rejected',
          'deployment_request.cancelled',
        ],
      })
      .expect(200);
    secret = hook.body.secret;
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('protection is set by a project admin (or the admin key), not by a project key or a deployer; it shows on the environment', async () => {
    const refused = await t.http().put('/v2/environments/production/protection').set(key()).send({ requireApproval: true, barKeys: true });
    expect([refused.status, refused.body]).toEqual([
      403,
      {
        error: 'Forbidden',
        message:
          "An environment's protection is changed by a project admin signed in to the console, or with the admin key; a project key cannot change it",
      },
    ]);
    const deployer = await t
      .http()
      .put('/v2/environments/production/protection')
      .set(a.headers)
      .send({ requireApproval: true, barKeys: true });
    expect([deployer.status, deployer.body.message]).toEqual([403, 'Your role here lacks the scope this endpoint needs: members:manage']);
    const bad = await protect({ requireApproval: 'yes', barKeys: true, extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual(expect.arrayContaining(['extra: unknown field']));
    expect(
      (await t.http().put('/v2/environments/nowhere/protection').set(admin.headers).send({ requireApproval: true, barKeys: false })).status,
    ).toBe(404);
    // Without the CSRF header a session's change is refused (the console's own pages send it).
    const { 'X-Parley-CSRF': _csrf, ...noCsrf } = admin.headers;
    expect(
      (await t.http().put('/v2/environments/production/protection').set(noCsrf).send({ requireApproval: true, barKeys: false })).status,
    ).toBe(403);

    const set = await protect({ requireApproval: true, barKeys: false }).expect(200);
    expect(set.body).toMatchObject({ slug: 'production', protection: { requireApproval: true, barKeys: false } });
    const listed = (await t.http().get('/v2/environments').set(key()).expect(200)).body.data;
    expect(Object.fromEntries(listed.map((e: { slug: string; protection: unknown }) => [e.slug, e.protection]))).toEqual({
      preview: null,
      production: { requireApproval: true, barKeys: false },
      staging: null,
    });
    // The admin key acting in the project may change it too.
    const byAdminKey = await t
      .http()
      .put('/v2/environments/staging/protection')
      .set({ 'X-API-Key': TEST_ADMIN_KEY, 'X-Parley-Project': `${p.workspace}/${p.project}` })
      .send({ requireApproval: false, barKeys: true })
      .expect(200);
    expect(byAdminKey.body.protection).toEqual({ requireApproval: false, barKeys: true });
    expect((await t.http().delete('/v2/environments/staging/protection').set(admin.headers).expect(200)).body.protection).toBeNull();
    const audited = await t.dataSource.query(
      `SELECT action, actor_kind, actor_user_email, after FROM audit_events
        WHERE project_id = $1 AND resource_type = 'environment' AND action LIKE 'environment.protection%' ORDER BY id`,
      [p.projectId],
    );
    expect(audited).toEqual([
      {
        action: 'environment.protection_set',
        actor_kind: 'user',
        actor_user_email: admin.email,
        after: { requireApproval: true, barKeys: false },
      },
      {
        action: 'environment.protection_set',
        actor_kind: 'admin',
        actor_user_email: null,
        after: { requireApproval: false, barKeys: true },
      },
      { action: 'environment.protection_removed', actor_kind: 'user', actor_user_email: admin.email, after: null },
    ]);
  });

  it("A's deploy waits (202, no deployment); A cannot approve it, nor can a viewer or a key; B approves and production serves it", async () => {
    const before = await deploymentRows('greet');
    expect(await served('greet')).toBe(3);
    const asked = await deployAs(a, 'greet', { environment: 'production', version: 4 });
    expect(asked.status).toBe(202);
    const request = asked.body;
    expect(request).toEqual({
      object: 'deployment_request',
      id: expect.any(String),
      status: 'pending',
      action: 'deploy',
      prompt: 'greet',
      environment: 'production',
      request: { environment: 'production', version: 4 },
      requestedBy: { kind: 'user', id: a.id, name: a.email },
      createdAt: expect.any(String),
      decidedBy: null,
      decidedAt: null,
      comment: null,
      deploymentId: null,
    });
    expect(await deploymentRows('greet')).toBe(before);
    expect(await served('greet')).toBe(3);
    // The same deploy again answers the same pending request.
    expect((await deployAs(a, 'greet', { environment: 'production', version: 4 }).expect(202)).body.id).toBe(request.id);
    // A deploy that changes nothing is no request: v3 is what production runs.
    expect((await deployAs(a, 'greet', { environment: 'production', version: 3 }).expect(200)).body).toMatchObject({
      version: 3,
      current: true,
    });
    const pending = (await t.http().get('/v2/deployment-requests').query({ status: 'pending' }).set(key()).expect(200)).body;
    expect(pending.data.map((r: { id: string }) => r.id)).toEqual([request.id]);
    expect((await t.http().get(`/v2/deployment-requests/${request.id}`).set(viewer.headers).expect(200)).body).toEqual(request);

    const own = await decide(a, request.id, 'approve');
    expect([own.status, own.body]).toEqual([403, { error: 'Forbidden', message: OWN_APPROVAL }]);
    const byViewer = await decide(viewer, request.id, 'approve');
    expect([byViewer.status, byViewer.body.message]).toEqual([403, 'Your role here lacks the scope this endpoint needs: deploy']);
    const byKey = await decide(key(), request.id, 'approve');
    expect([byKey.status, byKey.body]).toEqual([403, { error: 'Forbidden', message: KEYS_CANNOT_DECIDE }]);
    expect(await requestRow(request.id)).toEqual({ status: 'pending', requested_by_user_id: a.id, decided_by_user_id: null });
    expect(await deploymentRows('greet')).toBe(before);

    const approved = await decide(b, request.id, 'approve', { comment: 'Looks right.' }).expect(200);
    expect(approved.body).toMatchObject({
      id: request.id,
      status: 'approved',
      decidedBy: { kind: 'user', id: b.id, name: b.email },
      comment: 'Looks right.',
      deploymentId: expect.any(String),
    });
    expect(await deploymentRows('greet')).toBe(before + 1);
    expect(await served('greet')).toBe(4);
    const current = (await t.http().get('/v2/deployments').query({ slug: 'greet', environment: 'production' }).set(key()).expect(200)).body
      .data[0];
    expect([current.id, current.version]).toEqual([approved.body.deploymentId, 4]);
    const again = await decide(b, request.id, 'approve');
    expect([again.status, again.body]).toEqual([409, { error: { message: 'This deployment request is already approved' } }]);

    const events = await eventsAbout(request.id, 2);
    expect(events.map((e) => e.event.type)).toEqual(['deployment_request.created', 'deployment_request.approved']);
    for (const e of events) {
      const [id, timestamp] = [String(e.headers['webhook-id']), Number(e.headers['webhook-timestamp'])];
      expect(verifyWebhook(secret, id, timestamp, e.body, String(e.headers['webhook-signature']))).toBe(true);
      expect(e.event).toMatchObject({ object: 'event', id });
    }
    expect(events[0].event.data).toEqual(request);
    expect(events[1].event.data).toEqual(approved.body);

    const trail = await t.dataSource.query(
      `SELECT action, actor_kind, actor_user_id, actor_user_email FROM audit_events
        WHERE project_id = $1 AND (resource_id = $2 OR (action = 'deployment.created' AND after ->> 'version' = '4')) ORDER BY id`,
      [p.projectId, request.id],
    );
    expect(trail).toEqual([
      { action: 'deployment_request.created', actor_kind: 'user', actor_user_id: a.id, actor_user_email: a.email },
      { action: 'deployment.created', actor_kind: 'user', actor_user_id: b.id, actor_user_email: b.email },
      { action: 'deployment_request.approved', actor_kind: 'user', actor_user_id: b.id, actor_user_email: b.email },
    ]);
  });

  it('a rollback waits too; B rejects it and nothing is deployed; only the requester cancels', async () => {
    const before = await deploymentRows('greet');
    const rollback = (await deployAs(a, 'greet', { environment: 'production', version: 2 }).expect(202)).body;
    const rejected = await decide(b, rollback.id, 'reject', { comment: 'Not now.' }).expect(200);
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      decidedBy: { kind: 'user', id: b.id },
      comment: 'Not now.',
      deploymentId: null,
    });
    expect(await deploymentRows('greet')).toBe(before);
    expect(await served('greet')).toBe(4);
    expect((await decide(a, rollback.id, 'cancel')).status).toBe(409);

    const other = (await deployAs(a, 'greet', { environment: 'production', version: 1 }).expect(202)).body;
    const byOther = await decide(b, other.id, 'cancel');
    expect([byOther.status, byOther.body.message]).toEqual([403, 'Only the requester can cancel a deployment request']);
    const ownReject = await decide(a, other.id, 'reject');
    expect([ownReject.status, ownReject.body.message]).toEqual([403, 'You cannot reject your own deployment request: cancel it instead']);
    expect((await decide(a, other.id, 'cancel').expect(200)).body).toMatchObject({
      status: 'cancelled',
      decidedBy: { kind: 'user', id: a.id },
    });
    expect(await deploymentRows('greet')).toBe(before);

    expect((await eventsAbout(rollback.id, 2)).map((e) => e.event.type)).toEqual([
      'deployment_request.created',
      'deployment_request.rejected',
    ]);
    expect((await eventsAbout(other.id, 2)).map((e) => e.event.type)).toEqual([
      'deployment_request.created',
      'deployment_request.cancelled',
    ]);
    const rejection = await t.dataSource.query(
      `SELECT actor_user_email, after FROM audit_events WHERE project_id = $1 AND action = 'deployment_request.rejected' AND resource_id = $2`,
      [p.projectId, rollback.id],
    );
    expect(rejection).toEqual([
      { actor_user_email: b.email, after: expect.objectContaining({ status: 'rejected', requestedBy: a.email, comment: 'Not now.' }) },
    ]);
    // Unknown and malformed ids are not found; a decided one is listed under its status.
    for (const id of ['00000000-0000-7000-8000-000000000000', 'nope'])
      expect((await decide(b, id, 'approve')).body).toEqual({ error: { message: 'Deployment request not found' } });
    const listed = (await t.http().get('/v2/deployment-requests').query({ status: 'rejected', prompt: 'greet' }).set(key()).expect(200))
      .body;
    expect(listed.data.map((r: { id: string }) => r.id)).toEqual([rollback.id]);
  });

  it('a key with the deploy scope waits like a person; where keys are barred it is refused; an approval meets the deploy gate', async () => {
    const asked = await deployAs(key(), 'greet', { environment: 'production', version: 3 });
    expect(asked.status).toBe(202);
    expect(asked.body.requestedBy).toEqual({ kind: 'key', id: p.keyId, name: 'test' });

    await protect({ requireApproval: true, barKeys: true }).expect(200);
    const before = await deploymentRows('greet');
    const refused = await deployAs(key(), 'greet', { environment: 'production', version: 2 });
    expect([refused.status, refused.body]).toEqual([403, { error: 'Forbidden', message: barred('production') }]);
    // Nothing to change is still no refusal.
    await deployAs(key(), 'greet', { environment: 'production', version: 4 }).expect(200);
    expect(await deploymentRows('greet')).toBe(before);
    // Its request, made before the bar, waits; the key may cancel its own.
    expect((await decide(key(), asked.body.id, 'cancel').expect(200)).body.decidedBy).toEqual({ kind: 'key', id: p.keyId, name: 'test' });

    // A gate on production: the approval's deploy meets it, is refused, and the request stays pending.
    await deploy(t, p, { slug: 'greet', template: [{ role: 'system', content: 'Five.' }], environments: [] });
    const waiting = (await deployAs(a, 'greet', { environment: 'production', version: 5 }).expect(202)).body;
    await t.http().post('/v2/datasets').set(key()).send({ name: 'gate-set' }).expect(200);
    await t
      .http()
      .put('/v2/graders/gate-exact')
      .set(key())
      .send({ config: { type: 'equals' } })
      .expect(200);
    await t
      .http()
      .put('/v2/environments/production/gate')
      .set(key())
      .send({ dataset: 'gate-set', minScores: { 'gate-exact': 1 } })
      .expect(200);
    const gated = await decide(b, waiting.id, 'approve');
    expect([gated.status, gated.body.error.message]).toEqual([409, 'The deploy gate of "production" refused greet v5']);
    expect(await requestRow(waiting.id)).toMatchObject({ status: 'pending', decided_by_user_id: null });
    expect(await deploymentRows('greet')).toBe(before);
    expect(await served('greet')).toBe(4);
    // The refusal is in the audit trail, as a direct deploy's is; without the gate the approval goes through.
    const refusals = await t.dataSource.query(
      `SELECT actor_user_email FROM audit_events WHERE project_id = $1 AND action = 'deployment.gate_checked' AND after ->> 'outcome' = 'refused'`,
      [p.projectId],
    );
    expect(refusals).toEqual([{ actor_user_email: b.email }]);
    await t.http().delete('/v2/environments/production/gate').set(key()).expect(200);
    await decide(b, waiting.id, 'approve').expect(200);
    expect(await served('greet')).toBe(5);
    await protect({ requireApproval: true, barKeys: false }).expect(200);
  });

  it('an Idempotency-Key replays the 202 of a deploy that made a request', async () => {
    const send = () => deployAs(a, 'other', { environment: 'production', version: 2 }).set('Idempotency-Key', 'deploy-other-2');
    const first = await send();
    const replay = await send();
    expect([first.status, replay.status, replay.headers['idempotent-replayed']]).toEqual([202, 202, 'true']);
    expect(replay.body).toEqual(first.body);
    const rows = await t.dataSource.query(
      `SELECT r.id FROM deployment_requests r JOIN prompts p ON p.project_id = r.project_id AND p.id = r.prompt_id WHERE r.project_id = $1 AND p.slug = 'other'`,
      [p.projectId],
    );
    expect(rows).toEqual([{ id: first.body.id }]);
    // A decision's body is optional (curl -X POST with none).
    await t.http().post(`/v2/deployment-requests/${first.body.id}/cancel`).set(a.headers).expect(200);
  });

  it('parley apply: a deploy needs the deploy scope; to the protected production it waits as a request, once; barred keys are refused', async () => {
    const keys = `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`;
    const writer = (
      await t
        .http()
        .post(keys)
        .set('X-API-Key', TEST_ADMIN_KEY)
        .send({ name: 'writer', scopes: ['registry:read', 'registry:write'] })
        .expect(200)
    ).body.key;
    const file = (content: string, deploy: string[]) => ({
      workspace: p.workspace,
      project: p.project,
      prompts: [{ slug: 'applied', model: 'echo', template: [{ role: 'system', content }], deploy }],
    });
    const noScope = await t
      .http()
      .post('/v2/apply')
      .set('X-API-Key', writer)
      .send(file('One.', ['staging']));
    expect([noScope.status, noScope.body.message]).toEqual([
      403,
      'Deploying "applied" to "staging" needs the deploy scope (registry:write alone does not deploy)',
    ]);
    expect(await t.dataSource.query(`SELECT slug FROM prompts WHERE project_id = $1 AND slug = 'applied'`, [p.projectId])).toEqual([]);
    // Without deploys, registry:write applies as before.
    await t.http().post('/v2/apply').set('X-API-Key', writer).send(file('One.', [])).expect(200);

    const applied = (
      await t
        .http()
        .post('/v2/apply')
        .set(key())
        .send(file('One.', ['staging', 'production']))
        .expect(200)
    ).body;
    expect(applied.deployments).toEqual([
      expect.objectContaining({ slug: 'applied', environment: 'staging', version: 1, action: 'deployed' }),
    ]);
    expect(applied.deploymentRequests).toEqual([
      { id: expect.any(String), slug: 'applied', environment: 'production', version: 1, action: 'created' },
    ]);
    expect(applied.changed).toBe(true);
    const id = applied.deploymentRequests[0].id;
    const again = (
      await t
        .http()
        .post('/v2/apply')
        .set(key())
        .send(file('One.', ['staging', 'production']))
        .expect(200)
    ).body;
    expect(again.deploymentRequests).toEqual([{ id, slug: 'applied', environment: 'production', version: 1, action: 'unchanged' }]);
    expect(again.changed).toBe(false);
    const request = (await t.http().get(`/v2/deployment-requests/${id}`).set(key()).expect(200)).body;
    expect(request).toMatchObject({
      status: 'pending',
      request: { environment: 'production', version: 1 },
      requestedBy: { kind: 'key', id: p.keyId },
    });
    await decide(b, id, 'approve').expect(200);
    const now = (await t.http().get('/v2/deployments').query({ slug: 'applied', environment: 'production' }).set(key()).expect(200)).body
      .data;
    expect(now.map((d: { version: number }) => d.version)).toEqual([1]);
    // Applied again now, production already runs it: nothing waits, nothing changes.
    const settled = (
      await t
        .http()
        .post('/v2/apply')
        .set(key())
        .send(file('One.', ['staging', 'production']))
        .expect(200)
    ).body;
    expect([settled.deploymentRequests, settled.changed]).toEqual([undefined, false]);

    await protect({ requireApproval: true, barKeys: true }).expect(200);
    const refused = await t
      .http()
      .post('/v2/apply')
      .set(key())
      .send(file('Two.', ['production']));
    expect([refused.status, refused.body.message]).toEqual([403, barred('production')]);
    expect(
      await t.dataSource.query(
        `SELECT max(version) AS v FROM prompt_versions v JOIN prompts p ON p.project_id = v.project_id AND p.id = v.prompt_id WHERE v.project_id = $1 AND p.slug = 'applied'`,
        [p.projectId],
      ),
    ).toEqual([{ v: 1 }]);
    // A person applying waits like their direct deploy.
    const byPerson = (
      await t
        .http()
        .post('/v2/apply')
        .set(a.headers)
        .send(file('Two.', ['production']))
        .expect(200)
    ).body;
    expect(byPerson.deploymentRequests).toEqual([expect.objectContaining({ environment: 'production', version: 2, action: 'created' })]);
    const held = (await t.http().get(`/v2/deployment-requests/${byPerson.deploymentRequests[0].id}`).set(key()).expect(200)).body;
    expect(held.requestedBy).toEqual({ kind: 'user', id: a.id, name: a.email });
    await protect({ requireApproval: true, barKeys: false }).expect(200);
  });
});
