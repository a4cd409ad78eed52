import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { startPeriodic, stopPeriodic } from '../../common/periodic';
import { AppConfig } from '../../config/app-config';
import { DeploymentsService } from '../../registry/deployments/deployments.service';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { GUARD_TRIPPED_EVENT } from '../../webhooks/webhook.dto';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { countedFromOf, ExperimentResultsService } from '../experiment-results.service';
import { ArmCounts, countsOf, countsSince, GuardBaseline, Trip, tripsOf, weightsAfter } from './guard-evaluation';
import { GuardedDeployment, GuardedDeployments, GuardedKey } from './guarded-deployments';

const PERIODIC = 'split-guards';
const PAGE = 100;

/**
 * Checks the splits' guards (docs/experiments.md, "Guards") every PARLEY_GUARD_INTERVAL_MS, on
 * every instance: reads the current guarded deployments, each arm's figures from the rollups the
 * per-arm results read, and stops the arms a guard trips on. A stop is an ordinary deployment (the
 * same split, the arm at weight 0) written under the prompt's row lock only if the deployment
 * evaluated is still current, so two instances that both see the trip make one change; with it, in
 * the same transaction, the audit event and the webhook deliveries, and the registry's change
 * notification that every instance's cache drops the old split on.
 */
@Injectable()
export class GuardChecker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Guards');
  private running: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
    private readonly dataSource: DataSource,
    private readonly guarded: GuardedDeployments,
    private readonly results: ExperimentResultsService,
    private readonly deployments: DeploymentsService,
    private readonly audit: AuditLog,
    private readonly webhooks: WebhooksService,
    private readonly cache: RegistryCache,
  ) {}

  onApplicationBootstrap(): void {
    startPeriodic(this.schedule, PERIODIC, this.config.guardIntervalMs, () => void this.tick());
  }

  async onModuleDestroy(): Promise<void> {
    stopPeriodic(this.schedule, PERIODIC);
    this.stopping = true;
    // Before the database closes.
    await this.running;
  }

  /** One pass over every guarded deployment; a pass still under way is not doubled. */
  tick(): Promise<void> {
    if (this.running || this.stopping) return this.running ?? Promise.resolve();
    this.running = this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    let after: GuardedKey | undefined;
    for (;;) {
      let page: GuardedDeployment[];
      try {
        page = await this.guarded.page(after, PAGE);
      } catch (err) {
        return this.logger.warn(`guards: ${(err as Error).message}`);
      }
      for (const deployment of page) {
        if (this.stopping) return;
        await this.check(deployment).catch((err: unknown) =>
          this.logger.warn(`guards of ${deployment.prompt}@${deployment.environment}: ${(err as Error).message}`),
        );
      }
      if (page.length < PAGE) return;
      after = [page[PAGE - 1].projectId, page[PAGE - 1].id];
    }
  }

  /**
   * One deployment as `page` read it: its baseline taken on first sight, else its guards evaluated
   * on what was counted since, and the tripped arms stopped if it is still current.
   */
  async check(d: GuardedDeployment): Promise<void> {
    const versions = d.split.map((arm) => arm.version);
    const countedFrom = d.baseline ? new Date(d.baseline.countedFrom) : countedFromOf(d.deployedAt);
    const figures = await this.results.verdictArms(d.projectId, d.prompt, d.environment, versions, countedFrom);
    const now = new Map(figures.map((arm) => [arm.version, countsOf(arm)]));
    if (!d.baseline) {
      const arms = Object.fromEntries([...now].map(([version, counts]) => [String(version), counts]));
      const baseline = { takenAt: new Date().toISOString(), countedFrom: countedFrom.toISOString(), arms };
      return this.guarded.setBaseline(d.projectId, d.id, baseline);
    }
    const baseline = d.baseline;
    const counts = (version: number): ArmCounts => countsSince(now.get(version)!, baseline.arms[String(version)]);
    const trips = tripsOf(d.split, d.guards, counts);
    if (trips.length > 0) await this.stop(d, baseline, trips);
  }

  /** The split again with the tripped arms at 0, if `d` is still current; audited and sent to the webhooks with it. */
  private async stop(d: GuardedDeployment, baseline: GuardBaseline, trips: Trip[]): Promise<void> {
    const { projectId, prompt, environment } = d;
    const changed = await this.dataSource.transaction(async (manager) => {
      const ref = { projectId, prompt, environment, deploymentId: d.id };
      const deployment = await this.deployments.reweighLocked(manager, ref, weightsAfter(d.split, trips), 'system');
      if (!deployment) return false;
      // The same experiment goes on without the stopped arms: the others keep what they counted, from the same hour.
      await this.guarded.setBaseline(projectId, deployment.id, baseline, manager);
      for (const trip of trips) {
        const after = {
          deploymentId: deployment.id,
          deploymentVersion: deployment.deploymentVersion,
          split: deployment.split,
          version: trip.version,
          guard: trip.guard,
          figures: trip.figures,
          countedSince: baseline.takenAt,
          reason: trip.reason,
        };
        await this.audit.record(manager, {
          projectId,
          actor: 'system',
          action: 'deployment.guard_tripped',
          resourceType: 'deployment',
          resourceId: `${prompt}@${environment}`,
          before: { deploymentId: d.id, deploymentVersion: d.deploymentVersion, split: d.split },
          after,
        });
        await this.webhooks.enqueue(manager, projectId, GUARD_TRIPPED_EVENT, {
          prompt,
          environment,
          replacedDeploymentId: d.id,
          ...after,
        });
      }
      return true;
    });
    if (!changed) return;
    this.cache.invalidateProject(projectId);
    for (const trip of trips) this.logger.log(`guard tripped: ${prompt}@${environment} v${trip.version} stopped: ${trip.reason}`);
  }
}
