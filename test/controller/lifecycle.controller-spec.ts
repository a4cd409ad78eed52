import { DataSource } from 'typeorm';

import { ApplyController } from '../../src/apply/apply.controller';
import { ApplyService } from '../../src/apply/apply.service';
import { ExportService } from '../../src/apply/export.service';
import { AuditLog } from '../../src/audit/audit-log';
import { DeploymentRequestsRepository } from '../../src/registry/deployments/deployment-requests.repository';
import { DeploymentRequestsService } from '../../src/registry/deployments/deployment-requests.service';
import { DeploymentsRepository } from '../../src/registry/deployments/deployments.repository';
import { DeploymentsService } from '../../src/registry/deployments/deployments.service';
import { UndeployService } from '../../src/registry/deployments/undeploy.service';
import { EnvironmentDeletionService } from '../../src/registry/environments/environment-deletion.service';
import { EnvironmentGateService } from '../../src/registry/environments/environment-gate.service';
import { EnvironmentGates } from '../../src/registry/environments/environment-gates';
import { EnvironmentProtectionService } from '../../src/registry/environments/environment-protection.service';
import { EnvironmentsController } from '../../src/registry/environments/environments.controller';
import { EnvironmentsRepository } from '../../src/registry/environments/environments.repository';
import { EnvironmentsService } from '../../src/registry/environments/environments.service';
import { PromptArchived } from '../../src/registry/prompts/prompt-archived';
import { PromptLifecycleController } from '../../src/registry/prompts/prompt-lifecycle.controller';
import { PromptLifecycleService } from '../../src/registry/prompts/prompt-lifecycle.service';
import { PromptsController } from '../../src/registry/prompts/prompts.controller';
import { PromptsRepository } from '../../src/registry/prompts/prompts.repository';
import { PromptsService } from '../../src/registry/prompts/prompts.service';
import { VersionsRepository } from '../../src/registry/prompts/versions.repository';
import { VersionsService } from '../../src/registry/prompts/versions.service';
import { RegistryCache } from '../../src/registry-cache/registry-cache';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { APPROVAL_KEYS, ApprovalApiKeys, FakeDeploymentRequests, FakeDeployments, Recorded } from './support/approvals-fakes';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { KEYS, PROJECT, WORKSPACE } from './support/fakes';
import { LifecycleWorld } from './support/lifecycle-fakes';

/**
 * Archiving, restoring, undeploying and deleting environments (docs/registry.md, "Archiving,
 * undeploying, deleting") at the edge: the real controllers and services over in-memory rows
 * (support/lifecycle-fakes.ts), people as the guard makes them. Every new error body with its
 * status: 401, the 403s of the scopes and of a key where keys are barred, the 404s, the 409s of a
 * deployed prompt and of an environment that runs something, is protected or has a pending
 * request, the 400s of the new query parameters; the 202 of an undeploy that waits; and the
 * invoke endpoints' 404 for an archived prompt. The real conditions: test/lifecycle-*.e2e-spec.ts.
 */
const forbidden = (message: string) => ({ error: 'Forbidden', message });
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

describe('controller tier: archiving, undeploying and deleting environments', () => {
  let t: ControllerApp;
  const world = new LifecycleWorld();
  const recorded = new Recorded();
  const requests = new FakeDeploymentRequests(world.environments);

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [PromptsController, PromptLifecycleController, EnvironmentsController, ApplyController],
      providers: [
        PromptLifecycleService,
        UndeployService,
        DeploymentRequestsService,
        EnvironmentDeletionService,
        { provide: DataSource, useValue: { transaction: (work: (manager: object) => unknown) => work(world.manager) } },
        { provide: PromptsService, useValue: world.promptsService },
        { provide: PromptsRepository, useValue: world.promptsRepository },
        { provide: DeploymentsRepository, useValue: world.deploymentsRepository },
        { provide: VersionsRepository, useValue: world.versions },
        { provide: EnvironmentsService, useValue: world.environmentsService },
        { provide: EnvironmentsRepository, useValue: world.environmentsRepository },
        { provide: EnvironmentGates, useValue: { get: async () => null } },
        { provide: DeploymentsService, useValue: new FakeDeployments(world.environments) },
        { provide: DeploymentRequestsRepository, useValue: requests },
        { provide: AuditLog, useValue: recorded.auditLog },
        { provide: WebhooksService, useValue: recorded.webhooks },
        { provide: RegistryCache, useValue: { invalidateProject: () => undefined, announce: async () => undefined } },
        { provide: VersionsService, useValue: untouched('VersionsService') },
        { provide: EnvironmentGateService, useValue: untouched('EnvironmentGateService') },
        { provide: EnvironmentProtectionService, useValue: untouched('EnvironmentProtectionService') },
        { provide: ApplyService, useValue: untouched('ApplyService') },
        { provide: ExportService, useValue: untouched('ExportService') },
      ],
      keys: new ApprovalApiKeys(),
    });
  });
  afterAll(() => t.close());

  const key = keyedApi(() => t, KEYS.full);
  const ana = keyedApi(() => t, APPROVAL_KEYS.ana);
  const readOnly = keyedApi(() => t, APPROVAL_KEYS.readOnly);
  const viewer = keyedApi(() => t, APPROVAL_KEYS.viewer);

  it('401 on every new route without a key', async () => {
    for (const res of [
      await t.http().post('/v2/prompts/draft/archive'),
      await t.http().post('/v2/prompts/draft/restore'),
      await t.http().delete('/v2/prompts/support-reply/deployments/staging'),
      await t.http().delete('/v2/environments/empty'),
    ])
      expectInvalidApiKey(res);
  });

  it('403 naming the scope: archiving and deleting need registry:write, undeploying deploy', async () => {
    for (const res of [
      await readOnly.post('/v2/prompts/draft/archive'),
      await readOnly.post('/v2/prompts/draft/restore'),
      await readOnly.delete('/v2/environments/empty'),
    ])
      expectErrorAnswer(res, 403, forbidden('This API key lacks the scope this endpoint needs: registry:write'));
    expectErrorAnswer(
      await readOnly.delete('/v2/prompts/support-reply/deployments/staging'),
      403,
      forbidden('This API key lacks the scope this endpoint needs: deploy'),
    );
    expectErrorAnswer(
      await viewer.delete('/v2/prompts/support-reply/deployments/staging'),
      403,
      forbidden('Your role here lacks the scope this endpoint needs: deploy'),
    );
    expect(recorded.audit).toEqual([]);
  });

  it('archive: 404 for an unknown prompt, 409 naming where a deployed one runs, 200 (audited) once undeployed; restore: 404, 200', async () => {
    expectResourceError(await key.post('/v2/prompts/nobody/archive'), 404, 'Prompt not found', null);
    expectResourceError(await key.post('/v2/prompts/nobody/restore'), 404, 'Prompt not found', null);
    expectResourceError(
      await key.post('/v2/prompts/support-reply/archive'),
      409,
      '"support-reply" is deployed in locked, production, staging: undeploy it there first (DELETE /v2/prompts/support-reply/deployments/{environment}), then archive it',
      null,
    );
    expect(recorded.audit).toEqual([]);
    const archived = await key.post('/v2/prompts/draft/archive').expect(200);
    expect(archived.body).toMatchObject({ slug: 'draft', deployments: [], archivedAt: expect.any(String) });
    expect(recorded.audit.map((a) => a.action)).toEqual(['prompt.archived']);
    const restored = await key.post('/v2/prompts/shelved/restore').expect(200);
    expect(restored.body).toMatchObject({ slug: 'shelved', archivedAt: null });
    expect(recorded.audit.map((a) => a.action)).toEqual(['prompt.archived', 'prompt.restored']);
    // Already so: answered as it is, nothing recorded.
    await key.post('/v2/prompts/draft/archive').expect(200);
    await key.post('/v2/prompts/shelved/restore').expect(200);
    expect(recorded.audit).toHaveLength(2);
    expectResourceError(await key.post('/v2/prompts/draft/archive').set('Idempotency-Key', ' '), 400, 'Invalid request body', [
      'Idempotency-Key: must be 1 to 255 visible ASCII characters',
    ]);
  });

  it('undeploy: the 404s, 403 for a key where keys are barred, 202 where approval is required, 200 elsewhere', async () => {
    recorded.audit.splice(0);
    expectResourceError(await key.delete('/v2/prompts/nobody/deployments/staging'), 404, 'Prompt not found', null);
    expectResourceError(await key.delete('/v2/prompts/support-reply/deployments/nowhere'), 404, 'Environment not found', null);
    expectResourceError(await key.delete('/v2/prompts/draft/deployments/staging'), 404, 'No deployment in staging', null);
    expectErrorAnswer(
      await key.delete('/v2/prompts/support-reply/deployments/locked'),
      403,
      forbidden('API keys may not undeploy "locked" (a protected environment): a person signed in undeploys there, or asks to'),
    );
    const held = await ana.delete('/v2/prompts/support-reply/deployments/production').expect(202);
    expect(held.body).toMatchObject({
      object: 'deployment_request',
      status: 'pending',
      action: 'undeploy',
      environment: 'production',
      request: { environment: 'production' },
    });
    expect((await key.delete('/v2/prompts/support-reply/deployments/production').expect(202)).body.id).toBe(held.body.id);
    expect(recorded.events.filter((e) => e.data.id === held.body.id).map((e) => e.type)).toEqual(['deployment_request.created']);
    const ended = await key.delete('/v2/prompts/support-reply/deployments/staging').expect(200);
    expect(ended.body).toMatchObject({ slug: 'support-reply', environment: 'staging', version: 3, current: false });
    expect(recorded.audit.map((a) => a.action)).toEqual(['deployment_request.created', 'deployment.removed']);
    expectResourceError(await key.delete('/v2/prompts/support-reply/deployments/staging'), 404, 'No deployment in staging', null);
  });

  it('delete an environment: 404; 409 while it runs something, is protected, or has a pending request; 200 when it runs nothing', async () => {
    world.deploy('draft', 'staging');
    recorded.audit.splice(0);
    expectResourceError(await key.delete('/v2/environments/nowhere'), 404, 'Environment not found', null);
    expectResourceError(
      await key.delete('/v2/environments/staging'),
      409,
      '"staging" runs draft: undeploy it first (DELETE /v2/prompts/{slug}/deployments/staging)',
      null,
    );
    expectResourceError(
      await key.delete('/v2/environments/production'),
      409,
      '"production" is a protected environment: a project admin removes its protection first (DELETE /v2/environments/production/protection)',
      null,
    );
    expectResourceError(
      await key.delete('/v2/environments/waiting'),
      409,
      '1 deployment request for "waiting" is pending: approve, reject or cancel it first',
      null,
    );
    expect(recorded.audit).toEqual([]);
    const deleted = await key.delete('/v2/environments/empty').expect(200);
    expect(deleted.body).toEqual({ id: expect.any(String), slug: 'empty', object: 'environment', deleted: true });
    expect(recorded.audit.map((a) => a.action)).toEqual(['environment.deleted']);
    expectResourceError(await key.delete('/v2/environments/empty'), 404, 'Environment not found', null);
  });

  it('400 for the new query parameters: GET /v2/prompts?archived=, POST /v2/apply?prune= and ?dryRun=', async () => {
    expectResourceError(await key.get('/v2/prompts?archived=yes'), 400, 'Invalid request parameters', [
      'archived must be one of the following values: true, false',
    ]);
    const adminApply = (query: string) =>
      keyedApi(() => t, KEYS.admin).post(`/v2/apply${query}`, { yaml: `workspace: ${WORKSPACE}\nproject: ${PROJECT}\n` });
    expectResourceError(await adminApply('?prune=1'), 400, 'Invalid request parameters', [
      'prune must be one of the following values: true, false',
    ]);
    expectResourceError(await adminApply('?dryRun=yes&prune=true'), 400, 'Invalid request parameters', [
      'dryRun must be one of the following values: true, false',
    ]);
  });
});

describe('controller tier: invoking an archived prompt', () => {
  let t: ControllerApp;
  beforeAll(async () => {
    t = await createControllerApp();
  });
  afterAll(() => t.close());

  it('404 {error: "Prompt deployment not found", message} on both invoke endpoints: the not-deployed 404\'s error, saying why', async () => {
    jest.spyOn(t.fakes.invocation, 'resolve').mockImplementation(async (_caller, target) => {
      throw new PromptArchived(target.type === 'deployment' ? target.slug : '');
    });
    for (const path of [`/${WORKSPACE}/${PROJECT}/old-helper/production`, `/${WORKSPACE}/${PROJECT}/old-helper/production?v=1`])
      expectErrorAnswer(await keyedApi(() => t, KEYS.full).post(path, { messages: [{ role: 'user', content: 'hi' }] }), 404, {
        error: 'Prompt deployment not found',
        message: '"old-helper" is archived: restore it (POST /v2/prompts/old-helper/restore) to invoke it',
      });
  });
});
