import { DataSource } from 'typeorm';

import { AuditLog } from '../../src/audit/audit-log';
import { DeploymentRequestsController } from '../../src/registry/deployments/deployment-requests.controller';
import { DeploymentRequestsRepository } from '../../src/registry/deployments/deployment-requests.repository';
import { DeploymentRequestsService } from '../../src/registry/deployments/deployment-requests.service';
import { DeploymentsService } from '../../src/registry/deployments/deployments.service';
import { UndeployService } from '../../src/registry/deployments/undeploy.service';
import { EnvironmentDeletionService } from '../../src/registry/environments/environment-deletion.service';
import { EnvironmentGateService } from '../../src/registry/environments/environment-gate.service';
import { DeployGateRefused } from '../../src/registry/environments/environment-gates';
import { EnvironmentProtectionService } from '../../src/registry/environments/environment-protection.service';
import { EnvironmentsController } from '../../src/registry/environments/environments.controller';
import { EnvironmentsRepository } from '../../src/registry/environments/environments.repository';
import { EnvironmentsService } from '../../src/registry/environments/environments.service';
import { PromptsController } from '../../src/registry/prompts/prompts.controller';
import { PromptsService } from '../../src/registry/prompts/prompts.service';
import { VersionsService } from '../../src/registry/prompts/versions.service';
import { RegistryCache } from '../../src/registry-cache/registry-cache';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import {
  APPROVAL_KEYS,
  ApprovalApiKeys,
  environmentsOf,
  FakeDeploymentRequests,
  FakeDeployments,
  FakeEnvironmentRows,
  PEOPLE,
  Recorded,
} from './support/approvals-fakes';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { KEYS, PROJECT, UNKNOWN_UUID, WORKSPACE } from './support/fakes';

/**
 * Protected environments and deployment requests (docs/security.md, "Approvals") at the edge: the
 * real controllers and services (DeploymentRequestsService, EnvironmentProtectionService) over
 * in-memory rows (support/approvals-fakes.ts), people as the guard makes them from a session. Every
 * refusal's status and body, the 202 of a deploy that waits, and the 400s of the bodies and the
 * query. The real conditions against a database: test/protected-environments.e2e-spec.ts.
 */
const DEPLOY = '/v2/prompts/support-reply/deployments';
const forbidden = (message: string) => ({ error: 'Forbidden', message });

describe('controller tier: protected environments and deployment requests', () => {
  let t: ControllerApp;
  const environments = environmentsOf();
  const deployments = new FakeDeployments(environments);
  const requests = new FakeDeploymentRequests(environments);
  const recorded = new Recorded();
  // Any use fails the test; Nest's look for lifecycle hooks and promises (then) finds nothing.
  const untouched = (what: string) =>
    new Proxy(
      {},
      {
        get: (_target, name) =>
          typeof name === 'symbol' || /^(on[A-Z]\w*|beforeApplicationShutdown|then)$/.test(name)
            ? undefined
            : () => Promise.reject(new Error(`${what}.${name} is not part of this`)),
      },
    );

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [PromptsController, EnvironmentsController, DeploymentRequestsController],
      providers: [
        DeploymentRequestsService,
        EnvironmentProtectionService,
        // One transaction, whose manager the fakes below never use.
        { provide: DataSource, useValue: { transaction: (work: (manager: object) => unknown) => work({}) } },
        { provide: DeploymentsService, useValue: deployments },
        { provide: DeploymentRequestsRepository, useValue: requests },
        { provide: EnvironmentsRepository, useValue: new FakeEnvironmentRows(environments) },
        { provide: AuditLog, useValue: recorded.auditLog },
        { provide: WebhooksService, useValue: recorded.webhooks },
        { provide: RegistryCache, useValue: { invalidateProject: () => undefined } },
        { provide: PromptsService, useValue: untouched('PromptsService') },
        { provide: VersionsService, useValue: untouched('VersionsService') },
        { provide: EnvironmentsService, useValue: untouched('EnvironmentsService') },
        { provide: EnvironmentGateService, useValue: untouched('EnvironmentGateService') },
        // Undeploys and deleting environments are lifecycle.controller-spec.ts's.
        { provide: UndeployService, useValue: untouched('UndeployService') },
        { provide: EnvironmentDeletionService, useValue: untouched('EnvironmentDeletionService') },
      ],
      keys: new ApprovalApiKeys(),
    });
  });
  afterAll(() => t.close());

  const ana = keyedApi(() => t, APPROVAL_KEYS.ana);
  const ben = keyedApi(() => t, APPROVAL_KEYS.ben);
  const key = keyedApi(() => t, KEYS.full);
  const projectAdmin = keyedApi(() => t, APPROVAL_KEYS.projectAdmin);
  /** A pending request of Ana's to deploy `version` to production. */
  const pendingOfAna = async (version: number) => (await ana.post(DEPLOY, { environment: 'production', version }).expect(202)).body;

  it('401 on every new route without a key', async () => {
    for (const res of [
      await t.http().get('/v2/deployment-requests'),
      await t.http().get(`/v2/deployment-requests/${UNKNOWN_UUID}`),
      await t.http().post(`/v2/deployment-requests/${UNKNOWN_UUID}/approve`).send({}),
      await t.http().post(`/v2/deployment-requests/${UNKNOWN_UUID}/reject`).send({}),
      await t.http().post(`/v2/deployment-requests/${UNKNOWN_UUID}/cancel`).send({}),
      await t.http().put('/v2/environments/production/protection').send({ requireApproval: true, barKeys: false }),
      await t.http().delete('/v2/environments/production/protection'),
    ])
      expectInvalidApiKey(res);
  });

  it('403 naming the scope: deciding needs deploy (a viewer, a registry:read key), protection needs members:manage (a deployer)', async () => {
    // A person is told about their role, a key about itself.
    for (const [who, lacks] of [
      [APPROVAL_KEYS.viewer, 'Your role here lacks'],
      [APPROVAL_KEYS.readOnly, 'This API key lacks'],
    ] as const) {
      for (const decision of ['approve', 'reject', 'cancel'])
        expectErrorAnswer(
          await keyedApi(() => t, who).post(`/v2/deployment-requests/${UNKNOWN_UUID}/${decision}`, {}),
          403,
          forbidden(`${lacks} the scope this endpoint needs: deploy`),
        );
    }
    expectErrorAnswer(
      await ana.put('/v2/environments/production/protection', { requireApproval: true, barKeys: true }),
      403,
      forbidden('Your role here lacks the scope this endpoint needs: members:manage'),
    );
    expect(recorded.audit).toEqual([]);
  });

  it('a deploy to an environment that requires approval is 202 with the pending request; the same deploy again answers it', async () => {
    const res = await ana.post(DEPLOY, { environment: 'production', version: 4 });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      object: 'deployment_request',
      id: expect.any(String),
      status: 'pending',
      action: 'deploy',
      prompt: 'support-reply',
      environment: 'production',
      request: { environment: 'production', version: 4 },
      requestedBy: { kind: 'user', id: PEOPLE.ana.id, name: PEOPLE.ana.email },
      createdAt: expect.any(String),
      decidedBy: null,
      decidedAt: null,
      comment: null,
      deploymentId: null,
    });
    // Without `version`, the newest then (4): the same request.
    expect((await ben.post(DEPLOY, { environment: 'production' }).expect(202)).body.id).toBe(res.body.id);
    // What production runs already (v3): no request, the deployment as it is.
    expect((await ana.post(DEPLOY, { environment: 'production', version: 3 }).expect(200)).body).toMatchObject({ version: 3 });
    expect((await ana.post(DEPLOY, { environment: 'staging', version: 4 }).expect(200)).body).toMatchObject({ environment: 'staging' });
    expect(recorded.events.filter((e) => e.data.id === res.body.id).map((e) => e.type)).toEqual(['deployment_request.created']);
  });

  it('403 for a key where keys are barred, a 202 for a person there; a 400 body is answered before any request', async () => {
    expectErrorAnswer(
      await key.post(DEPLOY, { environment: 'locked', version: 4 }),
      403,
      forbidden('API keys may not deploy to "locked" (a protected environment): a person signed in deploys there, or asks to'),
    );
    await ana.post(DEPLOY, { environment: 'locked', version: 4 }).expect(202);
    const before = requests.rows.size;
    expectResourceError(await ana.post(DEPLOY, { environment: 'production', version: 9 }), 400, 'Invalid request body', [
      'version: "support-reply" has no version 9',
    ]);
    expectResourceError(await ana.post(DEPLOY, { environment: 'production', version: 0 }), 400, 'Invalid request body');
    expect(requests.rows.size).toBe(before);
  });

  it('approving: a key 403, the requester 403, another person 200 (deploys), then 409; unknown and malformed ids 404', async () => {
    const request = await pendingOfAna(2);
    const path = `/v2/deployment-requests/${request.id}`;
    deployments.written.splice(0);
    expectErrorAnswer(
      await key.post(`${path}/approve`, {}),
      403,
      forbidden('Only a person signed in can approve or reject a deployment request: API keys cannot'),
    );
    expectErrorAnswer(await ana.post(`${path}/approve`, {}), 403, forbidden('You cannot approve your own deployment request'));
    expect(deployments.written).toEqual([]);
    const approved = await ben.post(`${path}/approve`, { comment: 'Ship it.' }).expect(200);
    expect(approved.body).toMatchObject({
      status: 'approved',
      decidedBy: { kind: 'user', id: PEOPLE.ben.id, name: PEOPLE.ben.email },
      comment: 'Ship it.',
      deploymentId: expect.any(String),
    });
    expect(deployments.written).toEqual([{ environment: 'production', version: 2 }]);
    expectResourceError(await ben.post(`${path}/approve`, {}), 409, 'This deployment request is already approved', null);
    expectResourceError(await ben.post(`${path}/reject`, {}), 409, 'This deployment request is already approved', null);
    for (const id of [UNKNOWN_UUID, 'not-an-id'])
      expectResourceError(await ben.post(`/v2/deployment-requests/${id}/approve`, {}), 404, 'Deployment request not found', null);
    expectResourceError(await ben.get(`/v2/deployment-requests/not-an-id`), 404, 'Deployment request not found', null);
  });

  it("rejecting one's own and cancelling another's are 403; the requester cancels", async () => {
    const request = await pendingOfAna(1);
    const path = `/v2/deployment-requests/${request.id}`;
    expectErrorAnswer(
      await ana.post(`${path}/reject`, {}),
      403,
      forbidden('You cannot reject your own deployment request: cancel it instead'),
    );
    expectErrorAnswer(await ben.post(`${path}/cancel`, {}), 403, forbidden('Only the requester can cancel a deployment request'));
    expect((await ana.post(`${path}/cancel`, {}).expect(200)).body).toMatchObject({
      status: 'cancelled',
      decidedBy: { id: PEOPLE.ana.id },
    });
  });

  it("a deploy gate's refusal at approval is its 409 and leaves the request pending", async () => {
    const request = (await ana.post(DEPLOY, { environment: 'locked', version: 1 }).expect(202)).body;
    const message = 'The deploy gate of "locked" refused support-reply v1';
    deployments.refuseNext = new DeployGateRefused(message, ['no completed experiment run'], {} as never);
    expectResourceError(await ben.post(`/v2/deployment-requests/${request.id}/approve`, {}), 409, message, ['no completed experiment run']);
    expect(requests.rows.get(request.id)!.status).toBe('pending');
  });

  it('400 for a comment too long or a field more, and for a status that is none', async () => {
    const request = await pendingOfAna(2);
    const approve = `/v2/deployment-requests/${request.id}/approve`;
    expectResourceError(await ben.post(approve, { comment: 'x'.repeat(2001) }), 400, 'Invalid request body', [
      'comment must be shorter than or equal to 2000 characters',
    ]);
    expectResourceError(await ben.post(approve, { comment: 'ok', extra: 1 }), 400, 'Invalid request body', ['extra: unknown field']);
    expectResourceError(await ben.raw('post', approve, '{"comment":'), 400, 'Invalid request body', null);
    const listed = await ben.get('/v2/deployment-requests?status=done');
    expect(listed.status).toBe(400);
    expect(listed.body.error.details).toEqual([expect.stringContaining('status must be one of the following values')]);
    expect(requests.rows.get(request.id)!.status).toBe('pending');
  });

  it('protection: a project key 403 even with members:manage; a project admin or the admin key sets it; 404 and 400 as documented', async () => {
    expectErrorAnswer(
      await key.put('/v2/environments/staging/protection', { requireApproval: true, barKeys: true }),
      403,
      forbidden(
        "An environment's protection is changed by a project admin signed in to the console, or with the admin key; a project key cannot change it",
      ),
    );
    const set = await projectAdmin.put('/v2/environments/staging/protection', { requireApproval: true, barKeys: false }).expect(200);
    expect(set.body).toMatchObject({ slug: 'staging', protection: { requireApproval: true, barKeys: false } });
    expect(recorded.audit.at(-1)).toMatchObject({ action: 'environment.protection_set', resourceType: 'environment' });
    const adminKey = await t
      .http()
      .delete('/v2/environments/staging/protection')
      .set({ 'X-API-Key': KEYS.admin, 'X-Parley-Project': `${WORKSPACE}/${PROJECT}` })
      .expect(200);
    expect(adminKey.body.protection).toBeNull();
    expect(recorded.audit.at(-1)).toMatchObject({ action: 'environment.protection_removed' });
    expectResourceError(await projectAdmin.delete('/v2/environments/nowhere/protection'), 404, 'Environment not found', null);
    expectResourceError(
      await projectAdmin.put('/v2/environments/staging/protection', { requireApproval: 'yes' }),
      400,
      'Invalid request body',
      ['requireApproval must be a boolean value', 'barKeys must be a boolean value'],
    );
  });
});
