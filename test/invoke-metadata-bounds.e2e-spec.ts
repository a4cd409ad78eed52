import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, requestLogRows } from './support/invoke-factories';
import { captureOutput } from './support/output-capture';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 24: invoke metadata had no bound (300 keys × 3,000 characters were stored, 200
 * `x-parley-metadata-*` headers accepted), and a key sent in the query string was written to the
 * server log. Invoke metadata now has thread metadata's bounds, headers and body together, on the
 * spec's invoke and on /v1; a credential in a URL is redacted from the log line and the request log.
 */
describe("invoke metadata is bounded like threads'; keys in URLs are never written down", () => {
  let t: TestApp;
  let p: TestProject;
  const as = (project: TestProject) => ({ 'X-API-Key': project.key });
  const many = (count: number, length: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v'.repeat(length)]));
  const headers = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-parley-metadata-h${i}`, `value${i}`]));

  async function quietly<T>(fn: () => Promise<T>): Promise<T> {
    const output = captureOutput();
    try {
      return await fn();
    } finally {
      output.restore();
    }
  }

  beforeAll(() =>
    quietly(async () => {
      // info: the level that writes one line per request, URL included.
      t = await createTestApp({ ...INVOKE_APP_ENV, LOG_LEVEL: 'info' });
      p = await createProject(t);
      await deploy(t, p, { slug: 'meta' });
    }),
  );
  afterAll(() => quietly(() => t.close()));

  it("the spec's invoke: 300 keys × 3,000 characters → 400 issues; nothing is logged or stored", async () => {
    const res = await quietly(() =>
      t
        .http()
        .post(invokePath(p, 'meta'))
        .set(as(p))
        .send({ metadata: many(300, 3000) }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid request body');
    expect(res.body.issues).toEqual(
      expect.arrayContaining([
        {
          code: 'invalid_type',
          keys: [],
          path: ['metadata'],
          message: expect.stringContaining('metadata has 300 keys; at most 64 are allowed'),
        },
      ]),
    );
    expect(res.body.issues.map((issue: { message: string }) => issue.message).join()).toContain(
      'metadata.k0 is longer than 512 characters',
    );
    expect(await requestLogRows(t, p.projectId)).toEqual([]);
  });

  it('200 x-parley-metadata-* headers → 400 on every invoke surface; 64 keys (headers and body together) pass', async () => {
    const spec = await quietly(() => t.http().post(invokePath(p, 'meta')).set(as(p)).set(headers(200)).send({}));
    expect(spec.status).toBe(400);
    expect(spec.body.issues[0]).toEqual({
      code: 'invalid_type',
      keys: [],
      path: ['metadata'],
      message: 'metadata has 200 keys; at most 64 are allowed',
    });
    for (const [path, body] of [
      ['/v1/chat/completions', { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/responses', { model: 'local/echo', input: 'hi' }],
    ] as const) {
      const res = await quietly(() =>
        t
          .http()
          .post(path)
          .set(as(p))
          .set(headers(60))
          .send({ ...body, metadata: many(10, 5) }),
      );
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        param: 'metadata',
        message: expect.stringContaining('metadata has 70 keys; at most 64 are allowed'),
      });
      const long = await quietly(() =>
        t
          .http()
          .post(path)
          .set(as(p))
          .set({ [`x-parley-metadata-${'k'.repeat(65)}`]: 'v' })
          .send(body),
      );
      expect({ path, status: long.status }).toEqual({ path, status: 400 });
    }
    expect(await requestLogRows(t, p.projectId)).toEqual([]);

    const ok = await quietly(() =>
      t
        .http()
        .post(invokePath(p, 'meta'))
        .set(as(p))
        .set(headers(32))
        .send({ metadata: many(32, 512) }),
    );
    expect(ok.status).toBe(200);
    const [row] = await requestLogRows(t, p.projectId);
    expect(Object.keys(row.metadata)).toHaveLength(64);
  });

  it('a key in the query string is in neither the server log nor the request log', async () => {
    const output = captureOutput();
    try {
      await t.http().get(`/v2/threads?api_key=${p.key}&limit=5`).set(as(p)).expect(200);
      await t
        .http()
        .get(`/v2/threads?limit=5&k=${encodeURIComponent(p.key)}`)
        .set(as(p))
        .expect(200);
      await t
        .http()
        .post(`${invokePath(p, 'meta')}?v=&key=${p.key}`)
        .set(as(p))
        .send({})
        .expect(200);
    } finally {
      output.restore();
    }
    const log = output.text();
    expect(log).toContain('/v2/threads?api_key=[REDACTED]&limit=5');
    expect(log).toContain('/v2/threads?limit=5&k=[REDACTED]');
    expect(log).not.toContain(p.key);
    expect(log).not.toContain(p.key.slice(3));
    const rows = await requestLogRows(t, p.projectId);
    expect(rows.map((row) => row.url)).toContain(`${invokePath(p, 'meta')}?v=&key=[REDACTED]`);
    expect(JSON.stringify(rows)).not.toContain(p.key);
  });
});
