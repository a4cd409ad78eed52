import { randomUUID } from 'node:crypto';

import { MetricsService } from '../src/metrics/metrics.service';
import { createProject, createThread, TestProject } from './support/factories';
import { createTestApp, TestApp } from './support/test-app';

/** One sample line's value: `name{labels} value`, labels in the order prom-client writes them. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const rendered = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = `${name}{${rendered}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

/** Every label value of the sample lines of metrics whose name starts with `prefix`. */
function labelValues(text: string, prefix: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .flatMap((l) => [...(l.match(/\{(.*)\}/)?.[1] ?? '').matchAll(/\w+="([^"]*)"/g)].map((m) => m[1]));
}

/** GET /metrics: public Prometheus exposition, HTTP counters by route template, no raw ids. */
describe('metrics', () => {
  let t: TestApp;
  let p: TestProject;
  const missingThread = randomUUID();
  let threadIds: string[];

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    threadIds = [(await createThread(t, p)).id, (await createThread(t, p, { metadata: { n: 2 } })).id];
    await t.http().get(`/v2/threads/${threadIds[0]}`).set('X-API-Key', p.key).expect(200);
    await t.http().get(`/v2/threads/${missingThread}`).set('X-API-Key', p.key).expect(404);
    await t.http().post('/v2/threads').send({}).expect(401);
    await t.http().get(`/no-such-route/${missingThread}`).expect(404);
    // A known path with a method no route takes: Nest's not-found handler answers, so unmatched too.
    await t.http().delete('/v2/workspaces').set('X-API-Key', p.key).expect(404);
  });
  afterAll(() => t.close());

  it('answers without a key, in the text exposition format with the registry content type', async () => {
    const res = await t.http().get('/metrics').expect(200);
    expect(res.headers['content-type']).toBe(t.app.get(MetricsService).contentType);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain('# TYPE parley_http_requests_total counter');
    expect(res.text).toContain('# TYPE parley_http_request_duration_seconds histogram');
    for (const name of [
      'parley_provider_requests_total',
      'parley_provider_request_duration_seconds',
      'parley_provider_errors_total',
      'parley_tokens_total',
    ]) {
      expect(res.text).toContain(`# HELP ${name} `);
    }
    // Default process metrics, from this application's own registry.
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  it('counts requests by method, route template and status, errors answered by the filter included', async () => {
    const { text } = await t.http().get('/metrics').expect(200);
    const count = (method: string, route: string, status: string) => sample(text, 'parley_http_requests_total', { method, route, status });
    expect(count('POST', '/v2/threads', '200')).toBe(2);
    expect(count('GET', '/v2/threads/:threadId', '200')).toBe(1);
    expect(count('GET', '/v2/threads/:threadId', '404')).toBe(1);
    expect(count('POST', '/v2/threads', '401')).toBe(1);
    expect(count('GET', 'unmatched', '404')).toBe(1);
    expect(count('DELETE', 'unmatched', '404')).toBe(1);
    expect(text).not.toContain('route="/{*path}"');
    expect(count('POST', '/v2/workspaces', '200')).toBe(1);
    expect(count('POST', '/v2/workspaces/:workspace/projects', '200')).toBe(1);

    const histogram = (suffix: string, extra: Record<string, string> = {}) =>
      sample(text, `parley_http_request_duration_seconds_${suffix}`, { ...extra, method: 'POST', route: '/v2/threads', status: '200' });
    expect(histogram('count')).toBe(2);
    expect(histogram('bucket', { le: '+Inf' })).toBe(2);
    expect(histogram('sum')).toBeGreaterThan(0);
  });

  it('counts the scrape itself once it has been answered', async () => {
    const first =
      sample((await t.http().get('/metrics')).text, 'parley_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }) ?? 0;
    const second = sample((await t.http().get('/metrics')).text, 'parley_http_requests_total', {
      method: 'GET',
      route: '/metrics',
      status: '200',
    });
    expect(second).toBe(first + 1);
  });

  it('puts no raw URL, id, slug or key in any label', async () => {
    const { text } = await t.http().get('/metrics').expect(200);
    const values = labelValues(text, 'parley_');
    expect(values.length).toBeGreaterThan(0);
    for (const secret of [missingThread, ...threadIds, p.workspace, p.project, p.projectId, p.key, 'no-such-route']) {
      expect(text).not.toContain(secret);
    }
    for (const value of values) expect(value).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/i);
    const routes = new Set(
      text
        .split('\n')
        .filter((l) => l.startsWith('parley_http_requests_total{'))
        .map((l) => l.match(/route="([^"]*)"/)?.[1]),
    );
    for (const route of routes) expect(route === 'unmatched' || route?.startsWith('/')).toBe(true);
  });
});
