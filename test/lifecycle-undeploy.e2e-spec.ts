import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { addPerson, Person } from './support/person-fixtures';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Undeploying an environment and deleting one (docs/registry.md, "Undeploying", "Deleting an
 * environment"), through HTTP, with the database and the audit trail read afterwards. An undeploy
 * ends the current deployment (kept in the history) and a call there is then exactly the 404 of an
 * environment never deployed to; a protected environment holds it as a deployment request of action
 * `undeploy` that another person approves, and bars keys where it bars them. An environment is
 * deleted only while it runs nothing, is unprotected and has no pending request; its history goes
 * with it and the slug can be created again.
 */
describe('undeploying and deleting environments', () => {
  let t: TestApp;
  let p: TestProject;
  let ana: Person;
  let ben: Person;
  let admin: Person;
  const key = () => ({ 'X-API-Key': p.key });
  const undeploy = (slug: string, environment: string, who: Record<string, string> = key()) =>
    t.http().delete(`/v2/prompts/${slug}/deployments/${environment}`).set(who);
  const invoke = (slug: string, environment: string) =>
    t
      .http()
      .post(invokePath(p, slug, environment))
      .set(key())
      .send({});
  const deployments = async (slug: string) =>
    t.dataSource.query(
      `SELECT e.slug AS environment, d.deployment_version, d.replaced_at IS NULL AS current
         FROM deployments d JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
         JOIN environments e ON e.project_id = d.project_id AND e.id = d.environment_id
        WHERE d.project_id = $1 AND p.slug = $2 ORDER BY e.slug, d.deployment_version`,
      [p.projectId, slug],
    ) as Promise<{ environment: string; deployment_version: number; current: boolean }[]>;
  const auditOf = async (action: string, resourceId: string) =>
    ((await t.http().get('/v2/audit').query({ action }).set(key()).expect(200)).body.data as Array<Record<string, any>>).filter(
      (e) => e.resourceId === resourceId,
    );

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    [ana, ben, admin] = [
      await addPerson(t.app, p, 'deployer', 'ana'),
      await addPerson(t.app, p, 'deployer', 'ben'),
      await addPerson(t.app, p, 'admin', 'ada'),
    ];
  });
  afterAll(() => t.close());

  it('ends what an environment runs: kept in the history, audited, and a call there is the 404 of a never-deployed one', async () => {
    const v1 = await deploy(t, p, {
      slug: 'greet',
      template: [{ role: 'system', content: 'Hi.' }],
      environments: ['production', 'preview'],
    });
    const neverDeployed = await invoke('greet', 'staging').expect(404);
    const ended = await undeploy('greet', 'production').expect(200);
    expect(ended.body).toMatchObject({
      slug: 'greet',
      environment: 'production',
      version: 1,
      versionId: v1.id,
      deploymentVersion: 1,
      current: false,
    });
    expect(Date.parse(ended.body.replacedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await deployments('greet')).toEqual([
      { environment: 'preview', deployment_version: 1, current: true },
      { environment: 'production', deployment_version: 1, current: false },
    ]);
    const history = (await t.http().get('/v2/prompts/greet/deployments?environment=production').set(key()).expect(200)).body.data;
    expect(history).toEqual([expect.objectContaining({ id: ended.body.id, current: false, replacedAt: ended.body.replacedAt })]);
    expect((await t.http().get('/v2/prompts/greet').set(key()).expect(200)).body.deployments.map((d: any) => d.environment)).toEqual([
      'preview',
    ]);
    const afterwards = await invoke('greet', 'production').expect(404);
    expect(afterwards.body).toEqual(neverDeployed.body);
    expect(afterwards.body).toEqual({ error: 'Prompt deployment not found' });
    await invoke('greet', 'preview').expect(200);

    const [event] = await auditOf('deployment.removed', 'greet@production');
    expect(event).toMatchObject({
      resourceType: 'deployment',
      actor: { kind: 'project', keyId: p.keyId },
      before: { prompt: 'greet', environment: 'production', version: 1, versionId: v1.id, deploymentVersion: 1 },
      after: null,
    });

    // Nothing left to undeploy there; unknown names are 404s of their own.
    expect((await undeploy('greet', 'production').expect(404)).body).toEqual({ error: { message: 'No deployment in production' } });
    expect((await undeploy('greet', 'nowhere').expect(404)).body).toEqual({ error: { message: 'Environment not found' } });
    expect((await undeploy('nobody', 'production').expect(404)).body).toEqual({ error: { message: 'Prompt not found' } });
    expect(await auditOf('deployment.removed', 'greet@production')).toHaveLength(1);

    // Deploying again continues the environment's numbering.
    const again = await t.http().post('/v2/prompts/greet/deployments').set(key()).send({ environment: 'production' }).expect(200);
    expect(again.body.deploymentVersion).toBe(2);
    await invoke('greet', 'production').expect(200);
  });

  it('a protected environment holds an undeploy for approval, and bars keys where it bars them', async () => {
    await deploy(t, p, { slug: 'guarded', template: [{ role: 'system', content: 'Guarded.' }] });
    // A webhook that asks for the requests' events (its deliveries are read from the outbox, not received).
    await t
      .http()
      .post('/v2/webhooks')
      .set(key())
      .send({ url: 'http://127.0.0.1:9/hooks', events: ['deployment_request.created', 'deployment_request.approved'] })
      .expect(200);
    await t
      .http()
      .put('/v2/environments/production/protection')
      .set(admin.headers)
      .send({ requireApproval: true, barKeys: false })
      .expect(200);
    try {
      const held = await undeploy('guarded', 'production', ana.headers).expect(202);
      expect(held.body).toMatchObject({
        object: 'deployment_request',
        status: 'pending',
        action: 'undeploy',
        prompt: 'guarded',
        environment: 'production',
        request: { environment: 'production' },
        requestedBy: { kind: 'user', name: ana.email },
      });
      // The same undeploy while it waits is the same request; nothing is undeployed yet.
      expect((await undeploy('guarded', 'production', ana.headers).expect(202)).body.id).toBe(held.body.id);
      expect((await deployments('guarded')).filter((d) => d.current)).toHaveLength(1);
      await invoke('guarded', 'production').expect(200);
      expect(
        (await t.http().post(`/v2/deployment-requests/${held.body.id}/approve`).set(ana.headers).send({}).expect(403)).body.message,
      ).toBe('You cannot approve your own deployment request');

      const approved = await t.http().post(`/v2/deployment-requests/${held.body.id}/approve`).set(ben.headers).send({}).expect(200);
      expect(approved.body).toMatchObject({ status: 'approved', action: 'undeploy', decidedBy: { kind: 'user', name: ben.email } });
      const rows = await deployments('guarded');
      expect(rows).toEqual([{ environment: 'production', deployment_version: 1, current: false }]);
      const [request] = await t.dataSource.query(
        'SELECT action, status, deployment_id FROM deployment_requests WHERE project_id = $1 AND id = $2',
        [p.projectId, held.body.id],
      );
      expect(request).toEqual({ action: 'undeploy', status: 'approved', deployment_id: approved.body.deploymentId });
      expect(approved.body.deploymentId).toEqual(expect.any(String));
      await invoke('guarded', 'production').expect(404);
      const [removed] = await auditOf('deployment.removed', 'guarded@production');
      expect(removed.actor).toMatchObject({ kind: 'user', email: ben.email });
      const created = await auditOf('deployment_request.created', held.body.id);
      expect(created).toEqual([
        expect.objectContaining({ after: expect.objectContaining({ action: 'undeploy', environment: 'production' }) }),
      ]);
      expect(await auditOf('deployment_request.approved', held.body.id)).toHaveLength(1);
      const outbox: { type: string; payload: string | { data: Record<string, unknown> } }[] = await t.dataSource.query(
        'SELECT type, payload FROM webhook_deliveries WHERE project_id = $1 ORDER BY id',
        [p.projectId],
      );
      const sent = outbox.map((row) => ({
        type: row.type,
        data: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload).data,
      }));
      expect(sent).toEqual([
        { type: 'deployment_request.created', data: expect.objectContaining({ id: held.body.id, action: 'undeploy', status: 'pending' }) },
        {
          type: 'deployment_request.approved',
          data: expect.objectContaining({ id: held.body.id, action: 'undeploy', status: 'approved' }),
        },
      ]);

      // Where keys are barred, a key may not undeploy either.
      await t.http().post('/v2/prompts/guarded/deployments').set(ana.headers).send({ environment: 'production' }).expect(202);
      await t
        .http()
        .put('/v2/environments/production/protection')
        .set(admin.headers)
        .send({ requireApproval: false, barKeys: true })
        .expect(200);
      await t.http().post('/v2/prompts/guarded/deployments').set(ana.headers).send({ environment: 'production' }).expect(200);
      const barred = await undeploy('guarded', 'production').expect(403);
      expect(barred.body).toEqual({
        error: 'Forbidden',
        message: 'API keys may not undeploy "production" (a protected environment): a person signed in undeploys there, or asks to',
      });
      expect((await deployments('guarded')).filter((d) => d.current)).toHaveLength(1);
      await undeploy('guarded', 'production', ana.headers).expect(200);
    } finally {
      await t.http().delete('/v2/environments/production/protection').set(admin.headers).expect(200);
    }
  });

  it('deletes an environment that runs nothing, with its history, audited; refuses one that runs, is protected or has a pending request', async () => {
    await t.http().post('/v2/environments').set(key()).send({ slug: 'qa' }).expect(200);
    await deploy(t, p, { slug: 'tester', template: [{ role: 'system', content: 'QA.' }], environments: ['qa'] });
    await deploy(t, p, { slug: 'other', template: [{ role: 'system', content: 'Other.' }], environments: ['qa'] });
    const running = await t.http().delete('/v2/environments/qa').set(key()).expect(409);
    expect(running.body).toEqual({
      error: { message: '"qa" runs other, tester: undeploy them first (DELETE /v2/prompts/{slug}/deployments/qa)' },
    });
    await undeploy('other', 'qa').expect(200);
    expect((await t.http().delete('/v2/environments/qa').set(key()).expect(409)).body.error.message).toBe(
      '"qa" runs tester: undeploy it first (DELETE /v2/prompts/{slug}/deployments/qa)',
    );
    await undeploy('tester', 'qa').expect(200);
    const [qa] = await t.dataSource.query('SELECT id FROM environments WHERE project_id = $1 AND slug = $2', [p.projectId, 'qa']);
    expect(
      await t.dataSource.query('SELECT id FROM deployments WHERE project_id = $1 AND environment_id = $2', [p.projectId, qa.id]),
    ).toHaveLength(2);

    const deleted = await t.http().delete('/v2/environments/qa').set(key()).expect(200);
    expect(deleted.body).toEqual({ id: qa.id, slug: 'qa', object: 'environment', deleted: true });
    expect(await t.dataSource.query('SELECT id FROM environments WHERE project_id = $1 AND slug = $2', [p.projectId, 'qa'])).toEqual([]);
    expect(
      await t.dataSource.query('SELECT id FROM deployments WHERE project_id = $1 AND environment_id = $2', [p.projectId, qa.id]),
    ).toEqual([]);
    const [event] = await auditOf('environment.deleted', 'qa');
    expect(event).toMatchObject({
      resourceType: 'environment',
      actor: { kind: 'project', keyId: p.keyId },
      before: { slug: 'qa', history: { deployments: 2, prompts: ['other', 'tester'] } },
      after: null,
    });
    // The audit trail still holds what ran there.
    expect(await auditOf('deployment.created', 'tester@qa')).toHaveLength(1);
    expect((await t.http().get('/v2/environments').set(key()).expect(200)).body.data.map((e: any) => e.slug)).not.toContain('qa');
    expect((await t.http().delete('/v2/environments/qa').set(key()).expect(404)).body).toEqual({
      error: { message: 'Environment not found' },
    });
    await invoke('tester', 'qa').expect(404);

    // Created again, it starts afresh: no history, numbering from 1.
    await t.http().post('/v2/environments').set(key()).send({ slug: 'qa' }).expect(200);
    expect((await t.http().get('/v2/prompts/tester/deployments?environment=qa').set(key()).expect(200)).body.data).toEqual([]);
    const fresh = await t.http().post('/v2/prompts/tester/deployments').set(key()).send({ environment: 'qa' }).expect(200);
    expect(fresh.body.deploymentVersion).toBe(1);

    // Protected: a project admin lifts the protection first.
    await t.http().post('/v2/environments').set(key()).send({ slug: 'vault' }).expect(200);
    await t.http().put('/v2/environments/vault/protection').set(admin.headers).send({ requireApproval: true, barKeys: false }).expect(200);
    expect((await t.http().delete('/v2/environments/vault').set(key()).expect(409)).body).toEqual({
      error: {
        message:
          '"vault" is a protected environment: a project admin removes its protection first (DELETE /v2/environments/vault/protection)',
      },
    });
    // A request still pending after the protection went: decided first.
    const pending = await t.http().post('/v2/prompts/tester/deployments').set(ana.headers).send({ environment: 'vault' }).expect(202);
    await t.http().delete('/v2/environments/vault/protection').set(admin.headers).expect(200);
    expect((await t.http().delete('/v2/environments/vault').set(key()).expect(409)).body).toEqual({
      error: { message: '1 deployment request for "vault" is pending: approve, reject or cancel it first' },
    });
    await t.http().post(`/v2/deployment-requests/${pending.body.id}/cancel`).set(ana.headers).send({}).expect(200);
    await t.http().delete('/v2/environments/vault').set(key()).expect(200);
    expect(
      await t.dataSource.query('SELECT id FROM deployment_requests WHERE project_id = $1 AND id = $2', [p.projectId, pending.body.id]),
    ).toEqual([]);
    expect(await auditOf('environment.deleted', 'vault')).toHaveLength(1);
  });

  it('needs the deploy scope to undeploy and registry:write to delete; another project is not reached', async () => {
    await deploy(t, p, { slug: 'scoped', template: [{ role: 'system', content: 'S.' }] });
    const editor = await addPerson(t.app, p, 'editor', 'eddie');
    expect((await undeploy('scoped', 'production', editor.headers).expect(403)).body.error).toBe('Forbidden');
    const viewer = await addPerson(t.app, p, 'viewer', 'vic');
    await t.http().delete('/v2/environments/preview').set(viewer.headers).expect(403);
    const other = await createProject(t);
    await undeploy('scoped', 'production', { 'X-API-Key': other.key }).expect(404);
    await t.http().delete('/v2/environments/staging').set('X-API-Key', other.key).expect(200);
    expect((await deployments('scoped')).filter((d) => d.current)).toHaveLength(1);
    expect((await t.http().get('/v2/environments').set(key()).expect(200)).body.data.map((e: any) => e.slug)).toContain('staging');
  });
});
