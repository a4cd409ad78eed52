import { newId } from '../src/common/ids';
import { createProject, TestProject } from './support/factories';
import { INVOKE_APP_ENV } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * A provider's base URL never carries a credential (docs/security.md, "Provider base URLs"): the
 * REST routes and `parley apply` refuse the same URLs with one rule, and one stored before the rule
 * is shown redacted to the keys that read providers.
 */
describe('provider base URLs', () => {
  let t: TestApp;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const WITH_CREDENTIALS = [
    'https://user:s3cret-pass@llm.example.invalid/v1',
    'https://llm.example.invalid/v1?api_key=sk-live-123456',
    'https://llm.example.invalid/v1?key=pk_abcdefghijklmnopqrstuv',
  ];
  const NOT_URLS = ['ftp://llm.example.invalid/v1', 'not a url', 'http://exa mple.invalid/v1', 'https://llm.example.invalid:99999/v1'];
  const applyWith = (baseUrl: string) =>
    t
      .http()
      .post('/v2/apply')
      .set(admin)
      .send({ workspace: p.workspace, project: p.project, providers: [{ name: 'gw', type: 'openai', baseUrl }] });

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
  });
  afterAll(() => t.close());

  it('REST and apply refuse a base URL with credentials, and the same malformed URLs, with their documented 400s', async () => {
    for (const baseUrl of [...WITH_CREDENTIALS, ...NOT_URLS]) {
      const rest = await t.http().post('/v2/provider-credentials').set('X-API-Key', p.key).send({ name: 'gw', type: 'openai', baseUrl });
      expect({ baseUrl, status: rest.status }).toEqual({ baseUrl, status: 400 });
      expect(rest.body.error.message).toBe('Invalid request body');
      expect(rest.body.error.details).toEqual([expect.stringMatching(/^baseUrl must/)]);
      const applied = await applyWith(baseUrl);
      expect({ baseUrl, status: applied.status }).toEqual({ baseUrl, status: 400 });
      expect(applied.body.error.details).toEqual([expect.stringMatching(/^providers\[0\]\.baseUrl.*Expected an http\(s\) URL/)]);
      // Nothing of the secret comes back in the refusal.
      for (const secret of ['s3cret-pass', 'sk-live-123456', 'pk_abcdefghijklmnopqrstuv'])
        expect(rest.text + applied.text).not.toContain(secret);
    }
    expect(await t.dataSource.query('SELECT name FROM provider_credentials WHERE project_id = $1', [p.projectId])).toEqual([]);
    // A plain URL is taken by both.
    await t
      .http()
      .post('/v2/provider-credentials')
      .set('X-API-Key', p.key)
      .send({ name: 'plain', type: 'openai', baseUrl: 'http://localhost:8080/v1' })
      .expect(200);
    await applyWith('http://localhost:8080/v1').expect(200);
  });

  it('a base URL stored with credentials before the rule is shown redacted to a viewer key', async () => {
    const viewer = (
      await t
        .http()
        .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
        .set(admin)
        .send({ name: 'viewer', preset: 'viewer' })
        .expect(200)
    ).body.key;
    await t.dataSource.query(
      `INSERT INTO provider_credentials (project_id, id, name, type, base_url, created_at, updated_at) VALUES ($1, $2, 'legacy', 'openai', $3, now(), now())`,
      [p.projectId, newId(), 'https://olduser:old-pass@llm.example.invalid/v1?api_key=sk-legacy-999'],
    );
    const listed = await t.http().get('/v2/provider-credentials').set('X-API-Key', viewer).expect(200);
    const legacy = listed.body.data.find((c: { name: string }) => c.name === 'legacy');
    expect(legacy.baseUrl).toBe('https://[REDACTED]@llm.example.invalid/v1?api_key=[REDACTED]');
    expect(listed.text).not.toMatch(/old-pass|olduser|sk-legacy-999/);
    // parley export shows it redacted too.
    const exported = await t.http().get('/v2/export').query({ workspace: p.workspace, project: p.project }).set(admin).expect(200);
    expect(exported.text).toContain('https://[REDACTED]@llm.example.invalid/v1?api_key=[REDACTED]');
    expect(exported.text).not.toMatch(/old-pass|olduser|sk-legacy-999/);
  });
});
