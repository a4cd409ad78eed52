import { setMaxListeners } from 'node:events';

import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';

import { newId } from '../../common/ids';
import { startPeriodic, stopPeriodic } from '../../common/periodic';
import { AppConfig } from '../../config/app-config';
import { ClaimedRow, JobQueue } from '../../jobs/job-queue';
import { holdLease, JobWakeLoop } from '../../jobs/job-wake-loop';
import type { LiveGradeRequest } from '../../project-settings/live-graders';
import { LiveGrading } from './live-grading';

const WAKE = 'live-grades-wake';
/** Sampled calls one instance grades at once: most graders take microseconds, a model grader one judge call. */
export const LIVE_GRADE_CONCURRENCY = 8;
/** A job whose instance stopped this many times is dropped (its call stays ungraded) rather than queued again. */
const MAX_ATTEMPTS = 3;

/**
 * Every instance's share of the live graders' jobs (docs/experiments.md, "Live graders"), on the
 * one job queue like experiment runs: claimed with `FOR UPDATE SKIP LOCKED`, held by a lease renewed
 * while the job runs, and queued again when its instance stopped (the feedback it wrote is replaced,
 * not doubled: one per log, name and source). Woken at once by this instance's sampler, and every
 * half lease (at most 5 s) for the jobs other instances queued: the sampler sends no notification,
 * which at a high share would wake every instance's workers on every call.
 */
@Injectable()
export class LiveGradeWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('LiveGraders');
  readonly owner = `live-grades-${newId()}`;
  private readonly held = new Set<string>();
  /** Aborts the judges' calls in flight at shutdown: their jobs' leases expire and another instance grades them. */
  private readonly abort = new AbortController();
  private unsubscribe: (() => void) | null = null;
  private readonly loop = new JobWakeLoop(
    () => this.pass(),
    (err) => this.logger.warn(`live graders: ${err.message}`),
  );
  private lastTakeOver = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: JobQueue,
    private readonly grading: LiveGrading,
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {
    setMaxListeners(0, this.abort.signal);
  }

  onApplicationBootstrap(): void {
    this.unsubscribe = this.queue.onQueuedHere('live_grade', () => void this.wake());
    startPeriodic(this.schedule, WAKE, this.interval, () => void this.wake());
    void this.wake();
  }

  private get interval(): number {
    return Math.min(5000, Math.floor(this.config.responseJobs.leaseMs / 2));
  }

  private get stopped(): boolean {
    return this.loop.isStopped;
  }

  onModuleDestroy(): void {
    this.loop.stop();
    stopPeriodic(this.schedule, WAKE);
    this.unsubscribe?.();
    this.abort.abort();
  }

  wake(): Promise<void> {
    return this.loop.wake();
  }

  private async pass(): Promise<boolean> {
    // Woken on every batch queued here and every job done: the lease check runs at the periodic pace only.
    if (Date.now() - this.lastTakeOver >= this.interval) await this.takeOver();
    const free = LIVE_GRADE_CONCURRENCY - this.held.size;
    if (free <= 0) return false;
    const leaseMs = this.config.responseJobs.leaseMs;
    for (const job of await this.queue.claim<LiveGradeRequest>('live_grade', this.owner, leaseMs, free)) {
      this.held.add(job.id);
      void this.run(job);
    }
    return true;
  }

  private async run(job: ClaimedRow<LiveGradeRequest>): Promise<void> {
    const leaseMs = this.config.responseJobs.leaseMs;
    const release = holdLease(() => this.queue.renew(null, job.projectId, job.id, this.owner, leaseMs), leaseMs);
    try {
      await this.grading.grade(job.projectId, job.id, job.request, this.abort.signal);
      // Stopped meanwhile: the lease expires and another instance grades the call again.
      if (!this.stopped) await this.queue.removeHeld(job.projectId, job.id, this.owner);
    } catch (err) {
      // Left to its lease: queued again when it expires, up to MAX_ATTEMPTS times.
      if (!this.stopped) this.logger.warn(`live grading of log ${job.id} failed: ${(err as Error).message}`);
    } finally {
      release();
      this.held.delete(job.id);
    }
    if (!this.stopped) setImmediate(() => void this.wake());
  }

  /** Jobs whose instance stopped: queued again, or dropped after MAX_ATTEMPTS. */
  private async takeOver(): Promise<void> {
    this.lastTakeOver = Date.now();
    await this.dataSource.transaction(async (manager) => {
      const expired = await this.queue.lockExpired(manager, 'live_grade', 100);
      for (const job of expired) {
        if (job.attempts >= MAX_ATTEMPTS) await this.queue.remove(manager, job.projectId, job.id);
        else await this.queue.requeue(manager, job.projectId, job.id);
      }
      const dropped = expired.filter((job) => job.attempts >= MAX_ATTEMPTS).length;
      if (expired.length)
        this.logger.warn(`live graders: ${expired.length - dropped} job(s) queued again, ${dropped} dropped: their instance stopped`);
    });
  }
}
