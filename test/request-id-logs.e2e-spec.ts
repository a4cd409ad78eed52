import OpenAI from 'openai';

import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, listen } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** Request ids you can follow: X-Request-Id stored with the log, a /v2/logs filter, x-parley-log-id on the answer. */
describe('request ids on request logs', () => {
  let t: TestApp;
  let baseUrl: string;
  let p: TestProject;
  const body = { messages: [{ role: 'user', content: 'hi' }] };

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    await deploy(t, p, { slug: 'traced' });
  });
  afterAll(() => t.close());

  it('GET /v2/logs?requestId= finds the log of a call made with that X-Request-Id; the answer names its log', async () => {
    const requestId = `trace-${process.pid}-${Date.now()}`;
    const res = await t.http().post(invokePath(p, 'traced')).set('X-API-Key', p.key).set('X-Request-Id', requestId).send(body).expect(200);
    expect(res.headers['x-request-id']).toBe(requestId);
    const logId = res.headers['x-parley-log-id'];
    expect(logId).toMatch(/^[0-9a-f-]{36}$/);
    await t.http().post(invokePath(p, 'traced')).set('X-API-Key', p.key).send(body).expect(200);

    const found = await t.http().get('/v2/logs').query({ requestId }).set('X-API-Key', p.key).expect(200);
    expect(found.body.data.map((l: { id: string }) => l.id)).toEqual([logId]);
    await t.http().get(`/v2/logs/${logId}`).set('X-API-Key', p.key).expect(200);
    // Another project never finds it.
    const other = await createProject(t);
    expect((await t.http().get('/v2/logs').query({ requestId }).set('X-API-Key', other.key).expect(200)).body.data).toEqual([]);
  });

  it('a call without X-Request-Id is stored under the id Parley gave it and echoed; /v1 answers carry the log id too', async () => {
    const res = await t.http().post(invokePath(p, 'traced')).set('X-API-Key', p.key).send(body).expect(200);
    const given = res.headers['x-request-id'];
    const [row] = await t.dataSource.query('SELECT id, request_id FROM request_logs WHERE project_id = $1 AND id = $2', [
      p.projectId,
      res.headers['x-parley-log-id'],
    ]);
    expect(row).toEqual({ id: res.headers['x-parley-log-id'], request_id: given });

    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key, maxRetries: 0 });
    const { response } = await openai.chat.completions
      .create({ model: 'traced', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const logId = response.headers.get('x-parley-log-id');
    const requestId = response.headers.get('x-request-id');
    const found = await t.http().get('/v2/logs').query({ requestId: requestId! }).set('X-API-Key', p.key).expect(200);
    expect(found.body.data.map((l: { id: string }) => l.id)).toEqual([logId]);
  });
});
