import { MAX_LABEL_LENGTH, MAX_MODEL_VALUES, MetricsService } from './metrics.service';

async function value(service: MetricsService, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const values = (await service.registry.getMetricsAsJSON()).flatMap((m) =>
    m.values.map((v) => ({ ...v, name: (v as { metricName?: string }).metricName ?? m.name })),
  );
  const sameLabels = (given: object) => JSON.stringify(Object.entries(given).sort()) === JSON.stringify(Object.entries(labels).sort());
  return values.find((v) => v.name === name && sameLabels(v.labels))?.value;
}

describe('MetricsService', () => {
  it('keeps its metrics on a registry of its own, so several applications can run in one process', async () => {
    const a = new MetricsService();
    const b = new MetricsService();
    a.observeHttp({ method: 'GET', route: '/health', status: 200, durationSeconds: 0.01 });
    expect(await value(a, 'parley_http_requests_total', { method: 'GET', route: '/health', status: '200' })).toBe(1);
    expect(await value(b, 'parley_http_requests_total', { method: 'GET', route: '/health', status: '200' })).toBeUndefined();
    expect(a.contentType).toBe(a.registry.contentType);
  });

  it('records a successful provider call: request, duration and both token kinds', async () => {
    const m = new MetricsService();
    m.observeProvider({ provider: 'local', model: 'echo-1', status: 200, durationSeconds: 0.25, promptTokens: 12, completionTokens: 5 });
    m.observeProvider({ provider: 'local', model: 'echo-1', status: 200, durationSeconds: 0.5, promptTokens: 3, completionTokens: 4 });
    expect(await value(m, 'parley_provider_requests_total', { provider: 'local', model: 'echo-1', status: '200' })).toBe(2);
    expect(await value(m, 'parley_tokens_total', { provider: 'local', model: 'echo-1', kind: 'prompt' })).toBe(15);
    expect(await value(m, 'parley_tokens_total', { provider: 'local', model: 'echo-1', kind: 'completion' })).toBe(9);
    expect(await value(m, 'parley_provider_request_duration_seconds_count', { provider: 'local', model: 'echo-1' })).toBe(2);
    expect(await value(m, 'parley_provider_request_duration_seconds_sum', { provider: 'local', model: 'echo-1' })).toBeCloseTo(0.75);
    const text = await m.metrics();
    expect(text).toContain('parley_provider_request_duration_seconds_bucket{le="0.25",provider="local",model="echo-1"} 1');
    expect(text).not.toMatch(/^parley_provider_errors_total\{/m);
  });

  it('records a failed call as a request and an error by status, with no tokens', async () => {
    const m = new MetricsService();
    m.observeProvider({
      provider: 'openai-prod',
      model: 'gpt-x',
      status: 429,
      durationSeconds: 1,
      promptTokens: null,
      completionTokens: null,
    });
    m.observeProvider({ provider: 'openai-prod', model: 'gpt-x', status: 502, durationSeconds: 2 });
    m.observeProvider({ provider: 'openai-prod', model: 'gpt-y', status: 502, durationSeconds: 2 });
    expect(await value(m, 'parley_provider_requests_total', { provider: 'openai-prod', model: 'gpt-x', status: '429' })).toBe(1);
    expect(await value(m, 'parley_provider_errors_total', { provider: 'openai-prod', status: '429' })).toBe(1);
    expect(await value(m, 'parley_provider_errors_total', { provider: 'openai-prod', status: '502' })).toBe(2);
    expect(await m.metrics()).not.toMatch(/^parley_tokens_total\{/m);
  });

  it('bounds label values: length capped, empty and null named unknown, models beyond the cap counted as other', async () => {
    const m = new MetricsService();
    const long = 'm'.repeat(500);
    m.observeProvider({ provider: null, model: long, status: 200, durationSeconds: 0.1, promptTokens: 1 });
    expect(
      await value(m, 'parley_provider_requests_total', { provider: 'unknown', model: 'm'.repeat(MAX_LABEL_LENGTH), status: '200' }),
    ).toBe(1);

    for (let i = 0; i < MAX_MODEL_VALUES + 50; i++)
      m.observeProvider({ provider: 'local', model: `model-${i}`, status: 200, durationSeconds: 0.1 });
    const series = (await m.registry.getSingleMetric('parley_provider_requests_total')!.get()).values;
    expect(new Set(series.map((v) => v.labels.model)).size).toBe(MAX_MODEL_VALUES + 1);
    expect(await value(m, 'parley_provider_requests_total', { provider: 'local', model: 'other', status: '200' })).toBe(51);
    // A model seen before the cap keeps its own series.
    m.observeProvider({ provider: 'local', model: 'model-3', status: 200, durationSeconds: 0.1 });
    expect(await value(m, 'parley_provider_requests_total', { provider: 'local', model: 'model-3', status: '200' })).toBe(2);
  });

  it('ignores token counts that are not positive finite numbers', async () => {
    const m = new MetricsService();
    m.observeProvider({ provider: 'local', model: 'a', status: 200, durationSeconds: 0.1, promptTokens: 0, completionTokens: Number.NaN });
    expect(await m.metrics()).not.toMatch(/^parley_tokens_total\{/m);
  });
});
