import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import express from 'express';
import request from 'supertest';

import { httpMetrics } from './http-metrics.middleware';
import { MetricsService } from './metrics.service';

async function count(m: MetricsService, labels: Record<string, string>): Promise<number | undefined> {
  const values = (await m.registry.getSingleMetric('parley_http_requests_total')!.get()).values;
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

/** The middleware on a bare express app: route templates, sub-routers, streams and clients that leave. */
describe('httpMetrics middleware', () => {
  let m: MetricsService;
  let app: express.Express;
  let release: () => void;

  beforeEach(() => {
    m = new MetricsService();
    app = express();
    app.use(httpMetrics(m));
    app.get('/items/:id', (req, res) => void res.status(req.params.id === 'missing' ? 404 : 200).json({ id: req.params.id }));
    const router = express.Router();
    router.get('/things/:thingId', (_req, res) => void res.json({}));
    app.use('/nested', router);
    app.get('/stream', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => {
        res.write('data: 2\n\n');
        res.end();
      }, 20);
    });
    app.get('/hang', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: 1\n\n');
      release = () => res.end();
    });
  });

  it('labels by route template and status, never the raw path', async () => {
    await request(app).get('/items/abc').expect(200);
    await request(app).get('/items/missing').expect(404);
    await request(app).get('/nested/things/xyz').expect(200);
    await request(app).get('/nowhere/abc').expect(404);
    expect(await count(m, { method: 'GET', route: '/items/:id', status: '200' })).toBe(1);
    expect(await count(m, { method: 'GET', route: '/items/:id', status: '404' })).toBe(1);
    expect(await count(m, { method: 'GET', route: '/nested/things/:thingId', status: '200' })).toBe(1);
    expect(await count(m, { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    const text = await m.metrics();
    for (const raw of ['abc', 'xyz', 'missing', 'nowhere']) expect(text).not.toContain(raw);
  });

  it('counts a streamed response once it ends, timing the whole stream', async () => {
    await request(app).get('/stream').expect(200);
    expect(await count(m, { method: 'GET', route: '/stream', status: '200' })).toBe(1);
    const duration = (await m.registry.getSingleMetric('parley_http_request_duration_seconds')!.get()).values;
    const sum = duration.find(
      (v) => (v as { metricName?: string }).metricName === 'parley_http_request_duration_seconds_sum' && v.labels.route === '/stream',
    );
    expect(sum?.value).toBeGreaterThanOrEqual(0.015);
  });

  it('counts a stream the client left before it ended as 499', async () => {
    const server = http.createServer(app).listen(0);
    try {
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ port, path: '/hang' }, (res) =>
          res.once('data', () => {
            req.destroy();
            resolve();
          }),
        );
        req.on('error', reject);
      });
      for (let i = 0; i < 50 && (await count(m, { route: '/hang' })) === undefined; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await count(m, { method: 'GET', route: '/hang', status: '499' })).toBe(1);
      release();
      expect(await count(m, { method: 'GET', route: '/hang', status: '200' })).toBeUndefined();
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
