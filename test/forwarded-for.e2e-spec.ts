import { randomUUID } from 'node:crypto';

import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * `X-Forwarded-For` as a load balancer (or a client behind one) sends it, on every route that
 * invokes a model: the client address is read once at the edge (common/http/wire-request.ts), so
 * an address that is not an IP is dropped, never stored and never a 500, and every call keeps its
 * request log (docs/security.md, "Client addresses").
 */
describe('X-Forwarded-For on every invoking route', () => {
  let t: TestApp;
  let p: TestProject;

  const HEADERS: Array<[string, string, string | null]> = [
    ['not an IP', 'not-an-ip', null],
    ['overlong', `${'9'.repeat(300)}.1.2.3`, null],
    ['multi-hop (the client, then a private proxy)', '203.0.113.7, 10.0.0.1', '203.0.113.7'],
  ];

  type Call = { name: string; send: (requestId: string, forwardedFor: string) => Promise<{ status: number; text: string }> };
  const post = (path: string, body: object) => (requestId: string, forwardedFor: string) =>
    t.http().post(path).set('X-API-Key', p.key).set('X-Request-Id', requestId).set('X-Forwarded-For', forwardedFor).send(body);

  const CALLS: Call[] = [
    { name: 'spec invoke', send: (id, xff) => post(invokePath(p, 'edge'), { messages: [{ role: 'user', content: 'hi' }] })(id, xff) },
    {
      name: 'spec invoke, streamed',
      send: (id, xff) => post(invokePath(p, 'edge'), { stream: true, messages: [{ role: 'user', content: 'hi' }] })(id, xff),
    },
    {
      name: 'langtail invoke path',
      send: (id, xff) => post('/project-prompt/edge/production', { messages: [{ role: 'user', content: 'hi' }] })(id, xff),
    },
    {
      name: '/v1/chat/completions',
      send: (id, xff) => post('/v1/chat/completions', { model: 'edge', messages: [{ role: 'user', content: 'hi' }] })(id, xff),
    },
    {
      name: '/v1/chat/completions, streamed',
      send: (id, xff) =>
        post('/v1/chat/completions', { model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'hi' }] })(id, xff),
    },
    { name: '/v1/responses', send: (id, xff) => post('/v1/responses', { model: 'local/echo', input: 'hi' })(id, xff) },
    {
      name: '/v1/responses, streamed',
      send: (id, xff) => post('/v1/responses', { model: 'local/echo', input: 'hi', stream: true })(id, xff),
    },
    {
      name: '/v1/responses, background',
      send: (id, xff) => post('/v1/responses', { model: 'local/echo', input: 'hi', background: true })(id, xff),
    },
    {
      name: '/v1/responses/compact',
      send: (id, xff) => post('/v1/responses/compact', { model: 'local/echo', input: 'summarize this please' })(id, xff),
    },
  ];

  const logOf = async (requestId: string): Promise<{ request_ip: string | null; status: number } | undefined> => {
    for (let i = 0; i < 200; i++) {
      const [row] = await t.dataSource.query('SELECT request_ip, status FROM request_logs WHERE project_id = $1 AND request_id = $2', [
        p.projectId,
        requestId,
      ]);
      if (row) return row;
      await sleep(25); // a background response's log is written by its job, after the answer
    }
    return undefined;
  };

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    await deploy(t, p, { slug: 'edge' });
  });
  afterAll(() => t.close());

  for (const call of CALLS) {
    it(`${call.name}: answers as without the header, and its log stores only an address`, async () => {
      const plain = await call.send(`plain-${randomUUID()}`, '198.51.100.4');
      expect(plain.status).toBe(200);
      for (const [, forwardedFor, stored] of HEADERS) {
        const requestId = `xff-${randomUUID()}`;
        const res = await call.send(requestId, forwardedFor);
        expect({ forwardedFor, status: res.status }).toEqual({ forwardedFor, status: plain.status });
        expect(res.text).not.toMatch(/Internal server error/i);
        const log = await logOf(requestId);
        expect({ forwardedFor, log }).toEqual({ forwardedFor, log: expect.objectContaining({ request_ip: stored }) });
      }
    });
  }
});
