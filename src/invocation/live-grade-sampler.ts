import { Injectable, Logger } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import { GroupCommit } from '../database/group-commit';
import { JobQueue } from '../jobs/job-queue';
import { LiveGrader, LiveGradeRequest, sampledGraders, samplePoint } from '../project-settings/live-graders';
import { ProjectSettingsService } from '../project-settings/project-settings.service';
import { RequestLogEntity } from '../request-logs/request-log.entity';
import type { ResolvedTarget } from './invocation.types';

interface QueuedGrade {
  projectId: string;
  id: string;
  request: LiveGradeRequest;
}

/**
 * Samples a deployed call for the project's live graders once its log is stored (docs/experiments.md,
 * "Live graders") and queues a `live_grade` job for it, named by the log's id. The call does not
 * wait for it: the jobs of concurrent calls are group-committed in one INSERT, after which this
 * instance's worker is woken (other instances find them by polling). A job lost to a crash in
 * between is a call not graded, which sampling allows.
 */
@Injectable()
export class LiveGradeSampler {
  private readonly logger = new Logger('LiveGraders');
  private readonly queued = new GroupCommit<QueuedGrade>({
    maxInFlight: 2,
    maxBatch: 200,
    flush: async (jobs) => {
      await this.queue.insertQueued('live_grade', jobs);
      this.queue.queuedHere('live_grade');
      return jobs.map(() => ({ ok: true }));
    },
  });

  constructor(
    private readonly settings: ProjectSettingsService,
    private readonly queue: JobQueue,
  ) {}

  /**
   * Never throws and is not awaited. Only a successful call that a deployment served in the
   * environment it is logged under: not a direct provider call, not an embedding, not a call with
   * doNotRecord (nothing stored to grade), and not an experiment's or a grader's own calls, which
   * are logged under an environment of their own (`eval-<run id>`, `live-graders`).
   */
  consider(caller: ProjectPrincipal, target: ResolvedTarget, log: RequestLogEntity): void {
    const deployment = target.deployment;
    if (
      !deployment ||
      log.doNotRecord ||
      log.status >= 400 ||
      target.kind === 'embedding' ||
      target.environment !== deployment.environment
    ) {
      return;
    }
    // The registry's cache holds the settings (one read per project per cache period): no promise when they are there.
    const cached = this.settings.peek(caller.projectId);
    if (cached) return this.sample(caller, log, cached.liveGraders);
    this.settings.of(caller.projectId).then(
      (settings) => this.sample(caller, log, settings.liveGraders),
      (err: unknown) => this.failed(log, err),
    );
  }

  private sample(caller: ProjectPrincipal, log: RequestLogEntity, entries: readonly LiveGrader[]): void {
    if (entries.length === 0) return;
    const graders = sampledGraders(entries, { prompt: log.promptSlug, environment: log.environment }, () => samplePoint(log.id));
    if (graders.length === 0) return;
    const { projectId, workspaceId, workspaceSlug, projectSlug } = caller;
    this.queued
      .submit(projectId, { projectId, id: log.id, request: { graders, workspaceId, workspaceSlug, projectSlug } })
      .catch((err: unknown) => this.failed(log, err));
  }

  private failed(log: RequestLogEntity, err: unknown): void {
    this.logger.warn(`could not queue the live grading of log ${log.id}: ${(err as Error).message}`);
  }
}
