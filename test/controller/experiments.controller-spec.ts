import { ExperimentResultsController } from '../../src/experiments/experiment-results.controller';
import { ExperimentResultsService } from '../../src/experiments/experiment-results.service';
import { FeedbackRollups } from '../../src/feedback/feedback-rollups';
import { DeploymentsService } from '../../src/registry/deployments/deployments.service';
import { UsageRepository } from '../../src/usage/usage.repository';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import {
  DEPLOYMENT_ID,
  EXPERIMENT_KEYS,
  ExperimentApiKeys,
  FakeDeployments,
  FakeFeedbackRollups,
  FakeUsage,
} from './support/experiments-fakes';
import { KEYS } from './support/fakes';

/**
 * GET /v2/prompts/{slug}/deployments/{environment}/results (docs/experiments.md, "Per-arm results")
 * with the app's guard, pipe and filter, the real controller and service, over an in-memory
 * deployment and rollups (support/experiments-fakes.ts): 401, 403 and the three 404 bodies, and the
 * answer assembled from the rollups, with no database. The real conditions: test/experiments-results.e2e-spec.ts.
 */
const PATH = '/v2/prompts/support-reply/deployments/production/results';

describe('controller tier: experiment results', () => {
  let t: ControllerApp;
  const deployments = new FakeDeployments();
  const usage = new FakeUsage();
  const feedback = new FakeFeedbackRollups();

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [ExperimentResultsController],
      providers: [
        ExperimentResultsService,
        { provide: DeploymentsService, useValue: deployments },
        { provide: UsageRepository, useValue: usage },
        { provide: FeedbackRollups, useValue: feedback },
      ],
      keys: new ExperimentApiKeys(),
    });
  });
  afterAll(() => t.close());
  beforeEach(() => [deployments, usage, feedback].forEach((fake) => void fake.calls.splice(0)));

  const api = keyedApi(() => t, KEYS.full);
  const untouched = () => expect([...deployments.calls, ...usage.calls, ...feedback.calls]).toEqual([]);

  it('401 without a key or with an unknown one', async () => {
    expectInvalidApiKey(await t.http().get(PATH));
    expectInvalidApiKey(await t.http().get(PATH).set('X-API-Key', 'ck-no-such-key'));
    untouched();
  });

  it('403 for a key without usage:read, and for the admin key without X-Parley-Project', async () => {
    expectErrorAnswer(await t.http().get(PATH).set('X-API-Key', KEYS.logsOnly), 403, {
      error: 'Forbidden',
      message: 'This API key lacks the scope this endpoint needs: usage:read',
    });
    expectErrorAnswer(await t.http().get(PATH).set('X-API-Key', KEYS.admin), 403, {
      error: 'Forbidden',
      message: 'This endpoint needs a project API key',
    });
    untouched();
  });

  it.each([
    ['an unknown prompt', '/v2/prompts/no-such/deployments/production/results', 'Prompt not found'],
    ['an unknown environment', '/v2/prompts/support-reply/deployments/nowhere/results', 'Environment not found'],
    ['an environment that is no slug', '/v2/prompts/support-reply/deployments/Not%20A%20Slug/results', 'Environment not found'],
    ['an environment with nothing deployed', '/v2/prompts/support-reply/deployments/staging/results', 'No deployment in staging'],
  ])('404 for %s, before any rollup is read', async (_label, path, message) => {
    expectResourceError(await api.get(path), 404, message, null);
    expect([usage.calls, feedback.calls]).toEqual([[], []]);
  });

  it('200 for a key holding usage:read: the arms from the rollups, one read of each, and the verdicts against the control', async () => {
    const res = await t.http().get(PATH).set('X-API-Key', EXPERIMENT_KEYS.usageOnly);
    expect(res.status).toBe(200);
    expect([usage.calls, feedback.calls]).toEqual([['perVersion'], ['ofVersions']]);
    expect(res.body).toMatchObject({
      object: 'experiment.results',
      prompt: 'support-reply',
      environment: 'production',
      deploymentId: DEPLOYMENT_ID,
      deploymentVersion: 4,
      since: '2026-11-20T10:30:00.000Z',
      countedFrom: '2026-11-20T10:00:00.000Z',
    });
    const [control, arm] = res.body.arms;
    expect(control).toMatchObject({
      version: 7,
      weight: 90,
      control: true,
      calls: 900,
      errors: 9,
      errorRate: 0.01,
      tokens: { input: 90_000, output: 27_000, total: 117_000 },
      costUsd: '0.45',
      costPerCallUsd: '0.0005',
      firstHourShared: true,
      servedBefore: true,
    });
    expect(arm).toMatchObject({ version: 8, weight: 10, control: false, errorRate: 0.1, costPerCallUsd: '0.0006', servedBefore: false });
    // Bucket 8 ends at 2^8 = 256 ms; bucket 9 at 2^8.5 ≈ 362 ms.
    expect(control.latencyMs.p50).toBeGreaterThan(181);
    expect(control.latencyMs.p50).toBeLessThanOrEqual(256);
    expect(arm.feedback).toEqual([
      expect.objectContaining({ name: 'helpful', kind: 'boolean', count: 100, n: 100, mean: 0.78, categories: {} }),
    ]);
    expect(res.body.verdicts).toEqual([
      expect.objectContaining({
        version: 8,
        control: 7,
        metric: 'error_rate',
        winner: 7,
        verdict: expect.stringMatching(/^v8's error rate is higher than v7's: \+9\.0 points/),
      }),
      expect.objectContaining({
        version: 8,
        control: 7,
        metric: 'feedback',
        name: 'helpful',
        winner: null,
        verdict: null,
        reason: 'not enough evidence yet',
      }),
    ]);
  });
});
