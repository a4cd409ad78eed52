import { Injectable } from '@nestjs/common';

import { FeedbackRollups, RollupRow } from '../feedback/feedback-rollups';
import { DeploymentsService } from '../registry/deployments/deployments.service';
import { UsageRepository } from '../usage/usage.repository';
import { armResult, NO_USAGE, verdictArm } from './arm-results';
import { ExperimentResultsDto } from './experiment-results.dto';
import { verdictsOf } from './verdicts';

const HOUR_MS = 3_600_000;

/**
 * Per-arm results of an environment's current deployment (docs/experiments.md, "Per-arm results"):
 * read from the usage rollups (the hours since the deployment) and the feedback rollups only, never
 * the request logs; one query for each, whatever the number of arms, after the deployment's two.
 */
@Injectable()
export class ExperimentResultsService {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly usage: UsageRepository,
    private readonly feedback: FeedbackRollups,
  ) {}

  async results(projectId: string, slug: string, environment: string): Promise<ExperimentResultsDto> {
    const live = await this.deployments.live(projectId, slug, environment);
    const versions = live.arms.map((arm) => arm.version);
    const countedFrom = new Date(Math.floor(live.deployedAt.getTime() / HOUR_MS) * HOUR_MS);
    const [usage, feedback] = await Promise.all([
      this.usage.perVersion(projectId, live.prompt, live.environment, versions, countedFrom),
      this.feedback.ofVersions(projectId, live.prompt, live.environment, versions),
    ]);
    const usageOf = (version: number) => usage.find((row) => row.version === version) ?? NO_USAGE;
    const feedbackOf = (version: number): RollupRow[] => feedback.filter((row) => row.version === version);
    const arms = live.arms.map((arm, index) => {
      const lastServed = live.servedBefore.get(arm.version);
      const context = {
        arm,
        control: index === 0,
        firstHourShared: lastServed !== undefined && lastServed >= countedFrom,
        servedBefore: lastServed !== undefined,
      };
      return armResult(context, usageOf(arm.version), feedbackOf(arm.version));
    });
    const [control, ...others] = live.arms.map((arm) => verdictArm(arm.version, usageOf(arm.version), feedbackOf(arm.version)));
    return {
      object: 'experiment.results',
      prompt: live.prompt,
      environment: live.environment,
      deploymentId: live.deploymentId,
      deploymentVersion: live.deploymentVersion,
      since: live.deployedAt.toISOString(),
      countedFrom: countedFrom.toISOString(),
      arms,
      verdicts: verdictsOf(control, others),
    };
  }
}
