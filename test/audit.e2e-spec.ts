import { AuditRetentionService } from '../src/audit/audit-retention.service';
import { createProject, TestProject } from './support/factories';
import { INVOKE_APP_ENV } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const PROVIDER_SECRET = 'sk-audit-first-0123456789abcdef';
const ROTATED_SECRET = 'sk-audit-rotated-0123456789abcdef';

type AuditEvent = {
  id: string;
  action: string;
  resourceType: string;
  resourceId: string;
  actor: { kind: string; keyId: string | null; keyName: string | null; userId: string | null; email: string | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  requestId: string | null;
};

/** The audit trail: every configuration change, who made it, before and after, never a secret. */
describe('audit trail (GET /v2/audit)', () => {
  let t: TestApp;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const secrets: string[] = [PROVIDER_SECRET, ROTATED_SECRET, TEST_ADMIN_KEY];
  let n = 0;
  /** Each change carries its own X-Request-Id, so the test can find its event by it. */
  const rid = (label: string) => `audit-${label}-${++n}-${process.pid}`;

  async function allEvents(q: TestProject, query: Record<string, string> = {}): Promise<AuditEvent[]> {
    const events: AuditEvent[] = [];
    let after: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await t
        .http()
        .get('/v2/audit')
        .query({ ...query, limit: '3', ...(after ? { after } : {}) })
        .set('X-API-Key', q.key)
        .expect(200);
      events.push(...res.body.data);
      if (!res.body.has_more) return events;
      after = res.body.last_id;
    }
    throw new Error('more pages than expected');
  }

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    secrets.push(p.key);
  });
  afterAll(() => t.close());

  it('records every kind of change with who, what, before and after, and the request id', async () => {
    const as = (label: string) => ({ 'X-API-Key': p.key, 'X-Request-Id': rid(label) });
    const ids: Record<string, string> = {};
    const send = async (label: string, req: ReturnType<ReturnType<TestApp['http']>['post']>, headers: Record<string, string>) => {
      ids[label] = headers['X-Request-Id'];
      const res = await req.set(headers);
      expect([label, res.status]).toEqual([label, 200]);
      return res;
    };
    const http = t.http;
    await send('prompt', http().post('/v2/prompts').send({ slug: 'audited' }), as('prompt'));
    await send(
      'version',
      http()
        .post('/v2/prompts/audited/versions')
        .send({ template: [{ role: 'system', content: 'x' }], provider: 'local', model: 'echo' }),
      as('version'),
    );
    await send('environment', http().post('/v2/environments').send({ slug: 'qa' }), as('environment'));
    await send('deployment', http().post('/v2/prompts/audited/deployments').send({ environment: 'qa', version: 1 }), as('deployment'));
    await send(
      'provider',
      http()
        .post('/v2/provider-credentials')
        .send({ name: 'up', type: 'openai', baseUrl: 'https://api.example.com/v1', apiKey: PROVIDER_SECRET }),
      as('provider'),
    );
    const rotate = http()
      .put('/v2/provider-credentials/up')
      .send({ type: 'openai', baseUrl: 'https://api.example.com/v1', apiKey: ROTATED_SECRET });
    await send('rotate', rotate, as('rotate'));
    await send('unprovider', http().delete('/v2/provider-credentials/up') as never, as('unprovider'));
    const keys = `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`;
    const adminAs = (label: string) => ({ ...admin, 'X-Request-Id': rid(label) });
    const key = (await send('key', http().post(keys).send({ name: 'ci', preset: 'viewer' }), adminAs('key'))).body;
    secrets.push(key.key);
    await send('access', http().put(`${keys}/${key.id}/access`).send({ preset: 'app' }), adminAs('access'));
    await send('revoke', http().delete(`${keys}/${key.id}`) as never, adminAs('revoke'));
    await send(
      'limits',
      http()
        .put(`/v2/workspaces/${p.workspace}/projects/${p.project}/limits`)
        .send({ project: { requestsPerMinute: 600 } }),
      adminAs('limits'),
    );
    await send(
      'apply',
      http()
        .post('/v2/apply')
        .send({
          workspace: p.workspace,
          project: p.project,
          prompts: [{ slug: 'filed', model: 'echo', template: [{ role: 'system', content: 'y' }], deploy: ['production'] }],
        }),
      as('apply'),
    );

    const events = await allEvents(p);
    const byRequest = (label: string) => events.filter((e) => e.requestId === ids[label]);
    const project = { kind: 'project', keyId: p.keyId, keyName: 'test', userId: null, email: null };
    const operator = { kind: 'admin', keyId: null, keyName: 'PARLEY_ADMIN_KEY', userId: null, email: null };

    expect(byRequest('prompt')).toEqual([
      expect.objectContaining({
        action: 'prompt.created',
        resourceId: 'audited',
        actor: project,
        before: null,
        after: { slug: 'audited', kind: 'prompt' },
      }),
    ]);
    expect(byRequest('version')).toEqual([
      expect.objectContaining({
        action: 'version.created',
        resourceId: 'audited@1',
        after: expect.objectContaining({ version: 1, provider: 'local', model: 'echo' }),
      }),
    ]);
    expect(byRequest('environment')).toEqual([
      expect.objectContaining({ action: 'environment.created', resourceId: 'qa', after: { slug: 'qa' } }),
    ]);
    expect(byRequest('deployment')).toEqual([
      expect.objectContaining({
        action: 'deployment.created',
        resourceId: 'audited@qa',
        before: null,
        after: expect.objectContaining({ version: 1, environment: 'qa' }),
      }),
    ]);
    expect(byRequest('provider')).toEqual([
      expect.objectContaining({
        action: 'provider.created',
        resourceId: 'up',
        before: null,
        after: expect.objectContaining({ apiKeySource: 'stored', baseUrl: 'https://api.example.com/v1' }),
      }),
    ]);
    expect(byRequest('rotate')).toEqual([
      expect.objectContaining({
        action: 'provider.updated',
        before: expect.objectContaining({ apiKeySource: 'stored' }),
        after: expect.objectContaining({ apiKeySource: 'stored' }),
      }),
    ]);
    expect(byRequest('unprovider')).toEqual([
      expect.objectContaining({ action: 'provider.deleted', after: null, before: expect.objectContaining({ name: 'up' }) }),
    ]);
    expect(byRequest('key')).toEqual([
      expect.objectContaining({
        action: 'api_key.created',
        resourceId: key.id,
        actor: operator,
        after: expect.objectContaining({ name: 'ci', scopes: expect.arrayContaining(['logs:read']) }),
      }),
    ]);
    expect(byRequest('access')).toEqual([
      expect.objectContaining({
        action: 'api_key.access_changed',
        before: expect.objectContaining({ scopes: expect.arrayContaining(['logs:read']) }),
        after: expect.objectContaining({ scopes: ['invoke', 'threads:read', 'threads:write', 'feedback:write'] }),
      }),
    ]);
    expect(byRequest('revoke')).toEqual([expect.objectContaining({ action: 'api_key.revoked', resourceId: key.id, after: null })]);
    expect(byRequest('limits')).toEqual([
      expect.objectContaining({
        action: 'limits.updated',
        resourceId: 'project',
        before: null,
        after: { requestsPerMinute: 600, concurrentInvokes: null, tokensPerDay: null, budgetUsdPerDay: null, budgetUsdPerMonth: null },
      }),
    ]);
    expect(
      byRequest('apply')
        .map((e) => e.action)
        .sort(),
    ).toEqual(['deployment.created', 'prompt.created', 'version.created']);
    expect(byRequest('apply').every((e) => e.actor.keyId === p.keyId)).toBe(true);
    // Newest first.
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort().reverse());

    // No secret anywhere: not in the answers, not in the table.
    const rows = await t.dataSource.query('SELECT * FROM audit_events WHERE project_id = $1', [p.projectId]);
    const stored = JSON.stringify(rows) + JSON.stringify(events);
    for (const secret of secrets) expect(stored.includes(secret)).toBe(false);
    const [hash] = await t.dataSource.query('SELECT key_hash FROM api_keys WHERE id = $1', [key.id]);
    expect(stored.includes(hash.key_hash)).toBe(false);
  });

  it('filters by action, resource, actor and request id; another project sees none of it', async () => {
    const created = await allEvents(p, { action: 'provider.created' });
    expect(created.map((e) => e.resourceId)).toEqual(['up']);
    // The project's own key (made by createProject) and the test's.
    expect((await allEvents(p, { resourceType: 'api_key' })).map((e) => e.action).sort()).toEqual([
      'api_key.access_changed',
      'api_key.created',
      'api_key.created',
      'api_key.revoked',
    ]);
    expect((await allEvents(p, { resourceType: 'environment', resourceId: 'qa' })).length).toBe(1);
    expect((await allEvents(p, { actorKeyId: p.keyId })).every((e) => e.actor.keyId === p.keyId)).toBe(true);
    expect((await allEvents(p, { requestId: created[0].requestId! })).map((e) => e.id)).toEqual([created[0].id]);
    const other = await createProject(t);
    expect((await allEvents(other)).map((e) => e.action)).toEqual(['api_key.created']); // its own key only
    const bad = await t.http().get('/v2/audit').query({ resourceType: 'nope', actorKeyId: 'x' }).set('X-API-Key', p.key);
    expect([bad.status, bad.body.error.message]).toEqual([400, 'Invalid request parameters']);
  });

  it('is written in the transaction of the change: a refused apply leaves no event; nothing updates or deletes events over HTTP', async () => {
    const q = await createProject(t);
    const editor = (
      await t.http().post(`/v2/workspaces/${q.workspace}/projects/${q.project}/api-keys`).set(admin).send({ preset: 'editor' }).expect(200)
    ).body.key;
    // The environment is created before the provider change is refused: both roll back, its event too.
    const file = {
      workspace: q.workspace,
      project: q.project,
      environments: ['preview', 'staging', 'production', 'rolled-back'],
      providers: [{ name: 'x', type: 'openai', baseUrl: 'https://api.example.com/v1' }],
    };
    expect((await t.http().post('/v2/apply').set('X-API-Key', editor).send(file)).status).toBe(403);
    expect(await allEvents(q, { resourceType: 'environment' })).toEqual([]);
    for (const method of ['put', 'patch', 'delete', 'post'] as const)
      expect((await t.http()[method]('/v2/audit').set('X-API-Key', q.key)).status).toBe(404);
  });

  it('keeps events for AUDIT_RETENTION_DAYS (default 365), then deletes them', async () => {
    const q = await createProject(t);
    await t.http().post('/v2/environments').set('X-API-Key', q.key).send({ slug: 'kept' }).expect(200);
    const recent = await t.dataSource.query('SELECT id FROM audit_events WHERE project_id = $1 ORDER BY id', [q.projectId]);
    expect(recent.length).toBe(2); // its key, its environment
    await t.dataSource.query(
      `INSERT INTO audit_events (project_id, id, created_at, actor_kind, action, resource_type, resource_id)
       VALUES ($1, '01000000-0000-7000-8000-000000000000', now() - interval '400 days', 'operator', 'environment.created', 'environment', 'ancient')`,
      [q.projectId],
    );
    await t.app.get(AuditRetentionService).expire();
    expect(await t.dataSource.query('SELECT id FROM audit_events WHERE project_id = $1 ORDER BY id', [q.projectId])).toEqual(recent);
  });
});
