import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

interface LogDto {
  id: string;
  promptSlug: string;
  version: number | null;
  provider: string | null;
  model: string | null;
  projectAPIKeyId: string | null;
}

/** GET /v2/logs filters by version, model, provider and key (docs/console.md, the logs screen), each on a keyset index. */
describe('request log filters: version, model, provider, key', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  let api: Client;
  let fake: FakeUpstream;
  let second: { id: string; key: string };
  let all: LogDto[];

  const ids = (logs: LogDto[]) => logs.map((l) => l.id);
  const list = async (query: string): Promise<LogDto[]> => (await api.get(`/v2/logs?limit=100&${query}`).expect(200)).body.data;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_MAX_RETRIES: '0' });
    p = await createProject(t);
    other = await createProject(t);
    api = client(t, p.key);
    second = (
      await t
        .http()
        .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
        .set('X-API-Key', TEST_ADMIN_KEY)
        .send({ name: 'second' })
        .expect(200)
    ).body;
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-f' });
    await deploy(t, p, { slug: 'alpha' });
    await api.post(invokePath(p, 'alpha'), {}).expect(200); // v1, local/echo, first key
    await deploy(t, p, { slug: 'alpha', parameters: { max_tokens: 5 } });
    await client(t, second.key).post(invokePath(p, 'alpha'), {}).expect(200); // v2, second key
    await deploy(t, p, { slug: 'remote', provider: 'upstream', model: 'gpt-f' });
    await api.post(invokePath(p, 'remote'), {}).expect(200); // upstream/gpt-f
    await deploy(t, other, { slug: 'alpha' });
    await client(t, other.key).post(invokePath(other, 'alpha'), {}).expect(200);
    all = await list('');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('the project holds three logs: remote, alpha v2 (second key), alpha v1', () => {
    expect(all.map((l) => [l.promptSlug, l.version, l.provider, l.model, l.projectAPIKeyId])).toEqual([
      ['remote', 1, 'upstream', 'gpt-f', p.keyId],
      ['alpha', 2, 'local', 'echo', second.id],
      ['alpha', 1, 'local', 'echo', p.keyId],
    ]);
  });

  it('filters by version (of the prompt named by slug), model, provider and key, combined with AND and the other filters', async () => {
    expect(ids(await list('slug=alpha&version=1'))).toEqual([all[2].id]);
    expect(ids(await list('slug=alpha&version=2'))).toEqual([all[1].id]);
    expect(ids(await list('slug=remote&version=2'))).toEqual([]);
    expect(ids(await list('model=gpt-f'))).toEqual([all[0].id]);
    expect(ids(await list('model=echo'))).toEqual([all[1].id, all[2].id]);
    expect(ids(await list('provider=upstream'))).toEqual([all[0].id]);
    expect(ids(await list('provider=local&model=echo&status=success'))).toEqual([all[1].id, all[2].id]);
    expect(ids(await list(`keyId=${second.id}`))).toEqual([all[1].id]);
    expect(ids(await list(`keyId=${p.keyId}`))).toEqual([all[0].id, all[2].id]);
    expect(ids(await list(`keyId=${p.keyId}&provider=local`))).toEqual([all[2].id]);
    const first = (await api.get(`/v2/logs?keyId=${p.keyId}&limit=1`).expect(200)).body;
    expect([ids(first.data), first.has_more]).toEqual([[all[0].id], true]);
    expect(ids(await list(`keyId=${p.keyId}&after=${all[0].id}`))).toEqual([all[2].id]);
  });

  it("another project's key, an id that is no UUID, an unknown model: an empty page; the other project's logs never show", async () => {
    const empty = { object: 'list', data: [], has_more: false, first_id: null, last_id: null };
    for (const query of [`keyId=${other.keyId}`, 'keyId=nope', 'model=no-such-model', 'provider=nobody']) {
      expect([query, (await api.get(`/v2/logs?${query}`).expect(200)).body]).toEqual([query, empty]);
    }
    expect((await client(t, other.key).get(`/v2/logs?keyId=${p.keyId}`).expect(200)).body.data).toEqual([]);
  });

  it('a version without its slug, or not a version number, is a 400 naming it', async () => {
    const bare = await api.get('/v2/logs?version=1');
    expectResourceError(bare, 400, 'Invalid request parameters');
    expect(bare.body.error.details).toEqual(['version: needs slug']);
    for (const query of [
      'slug=alpha&version=0',
      'slug=alpha&version=v2',
      'slug=alpha&version=1.5',
      'model=%00',
      `provider=${'x'.repeat(201)}`,
      'keyId=%00',
    ]) {
      expectResourceError(await api.get(`/v2/logs?${query}`), 400, 'Invalid request parameters');
    }
  });

  it('each filter has a keyset index leading with project_id and ending with id', async () => {
    const rows: { indexname: string; indexdef: string }[] = await t.dataSource.query(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'request_logs' AND indexname IN ('request_logs_version_idx', 'request_logs_model_idx', 'request_logs_provider_idx', 'request_logs_key_idx') ORDER BY indexname",
    );
    expect(rows.map((r) => [r.indexname, /USING btree \(([^)]*)\)/.exec(r.indexdef)![1]])).toEqual([
      ['request_logs_key_idx', 'project_id, api_key_id, id'],
      ['request_logs_model_idx', 'project_id, model, id'],
      ['request_logs_provider_idx', 'project_id, provider_name, id'],
      ['request_logs_version_idx', 'project_id, prompt_slug, version, id'],
    ]);
  });
});
