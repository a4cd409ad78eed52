import type { Principal } from '../../../src/auth/principal';
import { notFound } from '../../../src/common/errors';
import type { FeedbackRollups, RollupRow } from '../../../src/feedback/feedback-rollups';
import type { DeploymentsService, LiveDeployment } from '../../../src/registry/deployments/deployments.service';
import { PROMPT_NOT_FOUND } from '../../../src/registry/prompts/prompts.service';
import { isSlugLike } from '../../../src/registry/slugs';
import { LATENCY_BUCKETS } from '../../../src/request-logs/usage-rollups';
import type { UsageRepository, UsageSums } from '../../../src/usage/usage.repository';
import { Failing, FakeApiKeys, projectPrincipal } from './fakes';

/**
 * What the experiment results service reads, in memory, for test/controller/experiments.controller-spec.ts:
 * one prompt (`support-reply`) with a 90/10 split of versions 7 and 8 in production and nothing
 * deployed in staging (DeploymentsService.live, with the real service's messages), and the rollups
 * of those versions (UsageRepository.perVersion, FeedbackRollups.ofVersions). The real
 * ExperimentResultsService runs over them. The real conditions: test/experiments-results.e2e-spec.ts.
 */

/** Beside ./fakes.ts's four keys: `usage:read` alone. */
export const EXPERIMENT_KEYS = { usageOnly: 'ck-controller-usage-read-1' } as const;

export class ExperimentApiKeys extends FakeApiKeys {
  private readonly reader = projectPrincipal(['usage:read']);

  override async resolve(secret: string): Promise<Principal | null> {
    return secret === EXPERIMENT_KEYS.usageOnly ? this.reader : super.resolve(secret);
  }
}

export const DEPLOYED_AT = new Date('2026-11-20T10:30:00.000Z');
export const DEPLOYMENT_ID = '01990000-0000-7000-8000-00000000e001';
const ENVIRONMENTS = ['production', 'staging'];

export class FakeDeployments extends Failing implements Pick<DeploymentsService, 'live'> {
  async live(_projectId: string, slug: string, environment: string): Promise<LiveDeployment> {
    this.called('live');
    if (slug !== 'support-reply') throw notFound(PROMPT_NOT_FOUND);
    if (!isSlugLike(environment) || !ENVIRONMENTS.includes(environment)) throw notFound('Environment not found');
    if (environment !== 'production') throw notFound(`No deployment in ${environment}`);
    return {
      prompt: slug,
      environment,
      deploymentId: DEPLOYMENT_ID,
      deploymentVersion: 4,
      deployedAt: DEPLOYED_AT,
      arms: [
        { version: 7, weight: 90 },
        { version: 8, weight: 10 },
      ],
      servedBefore: new Map([[7, new Date('2026-11-20T10:30:00.000Z')]]),
    };
  }
}

const latency = (bucket: number, count: number) => Array.from({ length: LATENCY_BUCKETS }, (_, i) => (i === bucket ? count : 0));

export const USAGE: Array<UsageSums & { version: number }> = [
  {
    version: 7,
    calls: 900,
    errors: 9,
    partialCalls: 0,
    unpricedCalls: 0,
    uncachedInput: 90_000,
    cacheRead: 0,
    cacheWrite: 0,
    reasoning: 0,
    output: 27_000,
    costUsd: '0.45',
    latency: latency(8, 900),
  },
  {
    version: 8,
    calls: 100,
    errors: 10,
    partialCalls: 0,
    unpricedCalls: 0,
    uncachedInput: 10_000,
    cacheRead: 0,
    cacheWrite: 0,
    reasoning: 0,
    output: 3_000,
    costUsd: '0.06',
    latency: latency(9, 100),
  },
];

export class FakeUsage extends Failing implements Pick<UsageRepository, 'perVersion'> {
  async perVersion(_projectId: string, _slug: string, _environment: string, versions: number[]): Promise<typeof USAGE> {
    this.called('perVersion');
    return USAGE.filter((row) => versions.includes(row.version));
  }
}

export const ROLLUPS: RollupRow[] = [7, 8].map((version) => ({
  version,
  name: 'helpful',
  total: 100,
  numbers: 0,
  booleans: 100,
  value_sum: version === 7 ? '80' : '78',
  value_sum_squares: version === 7 ? '80' : '78',
  categories: {},
}));

export class FakeFeedbackRollups extends Failing implements Pick<FeedbackRollups, 'ofVersions'> {
  async ofVersions(_projectId: string, _slug: string, _environment: string, versions: number[]): Promise<RollupRow[]> {
    this.called('ofVersions');
    return ROLLUPS.filter((row) => versions.includes(row.version));
  }
}
