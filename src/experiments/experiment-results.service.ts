import { Injectable } from '@nestjs/common';

import { FeedbackRollups, RollupRow } from '../feedback/feedback-rollups';
import { DeploymentsService } from '../registry/deployments/deployments.service';
import { UsageRepository, UsageSums } from '../usage/usage.repository';
import { armResult, NO_USAGE, verdictArm } from './arm-results';
import { ExperimentResultsDto } from './experiment-results.dto';
import { VerdictArm, verdictsOf } from './verdicts';

const HOUR_MS = 3_600_000;

/** Usage is kept per hour: a deployment's calls are counted from the start of the UTC hour it began in. */
export const countedFromOf = (deployedAt: Date): Date => new Date(Math.floor(deployedAt.getTime() / HOUR_MS) * HOUR_MS);

/** The figures of some versions of one prompt in one environment, as the rollups hold them. */
interface Figures {
  usageOf: (version: number) => UsageSums;
  feedbackOf: (version: number) => RollupRow[];
}

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
    const countedFrom = countedFromOf(live.deployedAt);
    const { usageOf, feedbackOf } = await this.figures(projectId, live.prompt, live.environment, versions, countedFrom);
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

  /**
   * What the verdicts compare of each version (calls, errors, feedback sums), counted from
   * `countedFrom` as the results count them: what a split's guards read (docs/experiments.md, "Guards").
   */
  async verdictArms(projectId: string, prompt: string, environment: string, versions: number[], countedFrom: Date): Promise<VerdictArm[]> {
    const { usageOf, feedbackOf } = await this.figures(projectId, prompt, environment, versions, countedFrom);
    return versions.map((version) => verdictArm(version, usageOf(version), feedbackOf(version)));
  }

  /** One query for the usage and one for the feedback, whatever the number of versions. */
  private async figures(projectId: string, prompt: string, environment: string, versions: number[], countedFrom: Date): Promise<Figures> {
    const [usage, feedback] = await Promise.all([
      this.usage.perVersion(projectId, prompt, environment, versions, countedFrom),
      this.feedback.ofVersions(projectId, prompt, environment, versions),
    ]);
    return {
      usageOf: (version) => usage.find((row) => row.version === version) ?? NO_USAGE,
      feedbackOf: (version) => feedback.filter((row) => row.version === version),
    };
  }
}
