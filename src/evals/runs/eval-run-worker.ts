import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';

import { ApiException } from '../../common/errors';
import { newId } from '../../common/ids';
import { startPeriodic, stopPeriodic } from '../../common/periodic';
import { AppConfig } from '../../config/app-config';
import { ChangeNotifier } from '../../database/changes';
import { InvocationService } from '../../invocation/invocation.service';
import { ClaimedRow, JobQueue } from '../../jobs/job-queue';
import { JobWakeLoop } from '../../jobs/job-wake-loop';
import { PricesService } from '../../usage/pricing/prices.service';
import { DatasetsRepository } from '../datasets/datasets.repository';
import { Grading } from '../graders/grading';
import { RunExecution, StopReason } from './run-execution';
import { RunTargets } from './run-target';
import { RunsRepository } from './runs.repository';
import type { RunJobRequest } from './runs.service';

const WAKE = 'eval-runs-wake';
/** A run whose instance died this many times is failed rather than queued again. */
const MAX_ATTEMPTS = 5;

/**
 * Every instance's share of the experiment runs (docs/evals.md, "Experiments"): woken by the job
 * queue's notification and every half lease, it queues again the runs whose instance stopped
 * (their stored items stay; the rest are run once more by whoever claims them), then claims queued
 * runs up to EVAL_RUNS_CONCURRENCY. A cancel notified by any instance aborts the run's calls here.
 */
@Injectable()
export class EvalRunWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Evals');
  readonly owner = `evals-${newId()}`;
  private readonly held = new Map<string, RunExecution | null>();
  private readonly loop = new JobWakeLoop(
    () => this.pass(),
    (err) => this.logger.warn(`experiment runs: ${err.message}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: JobQueue,
    private readonly runs: RunsRepository,
    private readonly datasets: DatasetsRepository,
    private readonly targets: RunTargets,
    private readonly invocation: InvocationService,
    private readonly grading: Grading,
    private readonly prices: PricesService,
    private readonly changes: ChangeNotifier,
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    this.changes.subscribe({
      onChange: (change) => {
        if (change.kind === 'response-jobs') void this.wake();
        else if (change.kind === 'job-cancel') this.held.get(change.jobId)?.halt({ type: 'cancelled' });
      },
      onFlush: () => void this.wake(),
    });
    startPeriodic(this.schedule, WAKE, Math.min(5000, Math.floor(this.config.responseJobs.leaseMs / 2)), () => void this.wake());
    void this.wake();
  }

  private get stopped(): boolean {
    return this.loop.isStopped;
  }

  onModuleDestroy(): void {
    this.loop.stop();
    stopPeriodic(this.schedule, WAKE);
    // The runs stop storing; their leases expire and another instance resumes them.
    for (const execution of this.held.values()) execution?.halt({ type: 'lease-lost' });
  }

  wake(): Promise<void> {
    return this.loop.wake();
  }

  private async pass(): Promise<boolean> {
    await this.takeOver();
    const free = this.config.evalRunsConcurrency - this.held.size;
    if (free <= 0) return false;
    for (const job of await this.queue.claim<RunJobRequest>('eval_run', this.owner, this.config.responseJobs.leaseMs, free)) {
      this.held.set(job.id, null);
      void this.run(job);
    }
    return true;
  }

  private async run(job: ClaimedRow<RunJobRequest>): Promise<void> {
    const { caller } = job.request;
    let stop: StopReason | null;
    try {
      const run = await this.runs.find(job.projectId, job.id);
      if (!run || run.status === 'cancelled' || run.status === 'completed' || run.status === 'failed') {
        stop = { type: run?.status === 'cancelled' ? 'cancelled' : 'failed', message: 'the run is over' } as StopReason;
      } else {
        await this.runs.setStatus(this.dataSource.manager, job.projectId, job.id, 'running');
        const prepared = await this.targets.prepare(caller, job.id, run.target);
        const execution = new RunExecution(
          {
            dataSource: this.dataSource,
            datasets: this.datasets,
            runs: this.runs,
            queue: this.queue,
            invocation: this.invocation,
            grading: this.grading,
            prices: this.prices,
            leaseMs: this.config.responseJobs.leaseMs,
          },
          caller,
          run,
          this.owner,
        );
        this.held.set(job.id, execution);
        if (this.stopped) execution.halt({ type: 'lease-lost' });
        // A cancel notified while the run was being prepared found no execution to halt: read it now.
        const lease = await this.queue.renew(null, job.projectId, job.id, this.owner, this.config.responseJobs.leaseMs);
        if (!lease) execution.halt({ type: 'lease-lost' });
        else if (lease.cancelRequested) execution.halt({ type: 'cancelled' });
        stop = await execution.execute(prepared);
      }
    } catch (err) {
      const message = err instanceof ApiException ? JSON.stringify(err.body).slice(0, 500) : (err as Error).message;
      stop = { type: 'failed', message: `the run could not start: ${message}` };
    } finally {
      this.held.delete(job.id);
    }
    await this.finish(job, stop).catch((err) => this.logger.error(`could not end run ${job.id}: ${(err as Error).message}`));
    if (!this.stopped) setImmediate(() => void this.wake());
  }

  /** Stores how the run ended and removes its job, if this instance still holds it. */
  private async finish(job: ClaimedRow<RunJobRequest>, stop: StopReason | null): Promise<void> {
    if (stop?.type === 'lease-lost') return;
    await this.dataSource.transaction(async (manager) => {
      const lease = await this.queue.renew(manager, job.projectId, job.id, this.owner, this.config.responseJobs.leaseMs);
      if (!lease) return;
      const run = await this.runs.find(job.projectId, job.id, manager, true);
      if (run && (run.status === 'queued' || run.status === 'running' || run.status === 'cancelled')) {
        // A cancel that committed after the last batch still wins: the API has answered it as cancelled.
        const status = run.status === 'cancelled' || stop?.type === 'cancelled' ? 'cancelled' : stop === null ? 'completed' : 'failed';
        await this.runs.setStatus(manager, job.projectId, job.id, status, stop?.type === 'failed' ? stop.message : null);
      }
      await this.queue.remove(manager, job.projectId, job.id);
    });
  }

  /** Runs whose instance stopped: queued again (their stored items stay), or failed after MAX_ATTEMPTS. */
  private async takeOver(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const expired = await this.queue.lockExpired(manager, 'eval_run', 20);
      for (const job of expired) {
        if (job.attempts >= MAX_ATTEMPTS) {
          await this.runs.setStatus(manager, job.projectId, job.id, 'failed', `the run stopped with its instance ${job.attempts} times`);
          await this.queue.remove(manager, job.projectId, job.id);
        } else await this.queue.requeue(manager, job.projectId, job.id);
      }
      if (expired.length) this.logger.warn(`queued ${expired.length} experiment run(s) again: their instance stopped`);
    });
  }
}
