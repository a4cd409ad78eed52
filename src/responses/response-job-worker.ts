import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource, EntityManager } from 'typeorm';

import { wireRequestOf } from '../common/http/wire-request';
import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';
import { holdLease, JobWakeLoop } from '../jobs/job-wake-loop';
import { Telemetry } from '../telemetry/telemetry';
import { ResponsesBodyDto } from './dto/responses-body.dto';
import { ResponseEventStore } from './response-event-store';
import { ClaimedJob, ResponseJobsRepository } from './response-jobs.repository';
import { errorOf, ResponseRunner } from './response-runner';
import { ResponseSignals } from './response-signals';
import { ResponseStatesRepository } from './response-states.repository';
import { endEvents, TAKEOVER_ERROR } from './response-terminal';
import { ResponsesService } from './responses.service';

const WAKE = 'response-jobs-wake';

/**
 * Every instance's share of the background responses (docs/openai-conversations.md, "Background
 * responses and resumable streams"): woken by a `response-jobs` notification and every half lease,
 * it claims queued jobs up to RESPONSES_JOB_CONCURRENCY (`FOR UPDATE SKIP LOCKED`), runs them, and
 * ends the jobs whose lease expired (their instance died): those are stored as `failed` — the
 * provider may already have been called, so they are never run a second time.
 */
@Injectable()
export class ResponseJobWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Responses');
  private offJobs: (() => void) | null = null;
  private readonly loop = new JobWakeLoop(
    () => this.pass(),
    (err) => this.logger.warn(`background responses: ${err.message}`),
  );
  /** Background jobs this instance holds, from their claim to their end (planning included). */
  private held = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: ResponseJobsRepository,
    private readonly states: ResponseStatesRepository,
    private readonly store: ResponseEventStore,
    private readonly runner: ResponseRunner,
    private readonly responses: ResponsesService,
    private readonly signals: ResponseSignals,
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
    @Optional() private readonly telemetry: Telemetry = Telemetry.OFF,
  ) {}

  onApplicationBootstrap(): void {
    this.offJobs = this.signals.onJobs(() => void this.wake());
    startPeriodic(this.schedule, WAKE, Math.min(5000, Math.floor(this.config.responseJobs.leaseMs / 2)), () => void this.wake());
    void this.wake();
  }

  private get stopped(): boolean {
    return this.loop.isStopped;
  }

  onModuleDestroy(): void {
    this.loop.stop();
    this.offJobs?.();
    stopPeriodic(this.schedule, WAKE);
  }

  /** Takes a slot for a background response this instance runs itself; false when none is free. Hand it to `run`, or `release` it. */
  reserve(): boolean {
    if (this.stopped || this.held >= this.config.responseJobs.concurrency) return false;
    this.held++;
    return true;
  }

  release(): void {
    this.held--;
  }

  /** Takes over expired jobs, then claims queued ones while there is room; one pass at a time. */
  wake(): Promise<void> {
    return this.loop.wake();
  }

  private async pass(): Promise<boolean> {
    await this.takeOver();
    const free = this.config.responseJobs.concurrency - this.held;
    if (free <= 0) return false;
    for (const job of await this.jobs.claim(this.runner.owner, this.config.responseJobs.leaseMs, free)) {
      this.held++;
      void this.run(job);
    }
    return true;
  }

  /**
   * Runs a job this instance holds (its slot reserved): plans it again (the request as stored),
   * moves it to in_progress, runs it. The lease is renewed from the claim on, planning included.
   */
  async run(job: ClaimedJob): Promise<void> {
    const { caller, body, headers, url, ip, createdAt } = job.request;
    const { leaseMs } = this.config.responseJobs;
    const release = holdLease(() => this.jobs.renew(null, job.projectId, job.id, this.runner.owner, leaseMs), leaseMs);
    try {
      // The stored body went through the same check as the request's (ResponsesBodyDto) when it was queued.
      const plan = await this.responses.plan(
        caller,
        wireRequestOf({ body, headers, url, ip, telemetry: this.telemetry.traceOfHeaders(headers) }),
        ResponsesBodyDto.parse(body),
        {
          uuid: job.id,
          createdAt,
        },
      );
      if (!(await this.states.start(job.projectId, job.id))) {
        await this.endHeld(job, null); // cancelled while queued
        return;
      }
      const last = await this.store.lastSequence(this.dataSource.manager, job.projectId, job.id);
      await this.runner.runJob(caller, plan, last + 1);
    } catch (err) {
      // The request no longer plans (its model, prompt or conversation is gone): failed with that error.
      await this.endHeld(job, errorOf(err)).catch((failure) =>
        this.logger.error(`could not end response ${job.id}: ${(failure as Error).message}`),
      );
    } finally {
      release();
      this.held--;
      if (!this.stopped) setImmediate(() => void this.wake());
    }
  }

  /** Ends a job this instance holds without running it. */
  private async endHeld(job: ClaimedJob, error: { code: string; message: string } | null): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.jobs.renew(manager, job.projectId, job.id, this.runner.owner, this.config.responseJobs.leaseMs))) return;
      await this.abandon(manager, job.projectId, job.id, error ?? TAKEOVER_ERROR);
    });
  }

  private async takeOver(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const expired = await this.jobs.lockExpired(manager, 20);
      for (const job of expired) await this.abandon(manager, job.projectId, job.id, TAKEOVER_ERROR);
      if (expired.length) this.logger.warn(`took over ${expired.length} response job(s) whose instance stopped: stored as failed`);
    });
  }

  /** Stores the end of a response nobody runs any more: failed with `error`, or cancelled when it was; removes its job. */
  private async abandon(manager: EntityManager, projectId: string, id: string, error: { code: string; message: string }): Promise<void> {
    const row = await this.states.lock(manager, projectId, id);
    if (row && (row.status === 'queued' || row.status === 'in_progress' || row.status === 'cancelled')) {
      const end =
        row.status === 'cancelled' ? endEvents(row.body, { status: 'cancelled' }) : endEvents(row.body, { status: 'failed', error });
      const next = (await this.store.lastSequence(manager, projectId, id)) + 1;
      await this.store.append(
        manager,
        projectId,
        id,
        end.events.map((event, i) => ({ ...event, sequence_number: next + i })),
      );
      await this.states.finish(manager, projectId, id, row.status, row.status === 'cancelled' ? 'cancelled' : 'failed', end.body);
    }
    await this.jobs.remove(manager, projectId, id);
  }
}
