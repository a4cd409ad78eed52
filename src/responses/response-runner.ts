import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { openaiErrorObjectOf } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { InvocationService } from '../invocation/invocation.service';
import { EventQueue } from './event-queue';
import { ResponseEventStore } from './response-event-store';
import { LeaseLostError, ResponseEventWriter } from './response-event-writer';
import { ResponseEvent, ResponseEventTranslator } from './response-events';
import { ResponseJobsRepository } from './response-jobs.repository';
import { pendingResponse, responseOf } from './response-object';
import type { ResponsePlan } from './response-plan';
import { ResponseSignals } from './response-signals';
import { ResponseStatesRepository } from './response-states.repository';
import { DISCONNECTED_ERROR, endEvents, replyMessages } from './response-terminal';

/** The response left the status this run expected (it was cancelled meanwhile). */
class NotRunningError extends Error {}

type StopReason = 'lease' | 'cancel' | 'client' | 'shutdown';

interface RunContext {
  caller: ProjectPrincipal;
  plan: ResponsePlan;
  background: boolean;
  /** The first sequence number this run writes: 2 after a background response's created/queued events. */
  startSequence: number;
  /** The foreground client going away (aborts the upstream call; not given for background runs). */
  signal?: AbortSignal;
  onStored?: (events: ResponseEvent[]) => void;
  onEnd?: () => void;
  /** The invocation's own answer headers (x-ratelimit-*, x-parley-cache), once the provider (or the cache) answered. */
  onHeaders?: (headers: Record<string, string>) => void;
}

const SHUTDOWN_ERROR = {
  code: 'server_error',
  message: 'The Parley instance running this response shut down before it finished; create the response again.',
};

/**
 * Runs one streamed or background response on this instance: the provider call through the
 * invocation core, its events stored in batches (ResponseEventWriter) under the job's lease, and
 * its end (completed / incomplete with the turn, failed, cancelled) written exactly once. The
 * completion is stored in the same transaction as the call's log and conversation turns, guarded
 * by the response's status and the lease: a cancelled or taken-over response never appends its
 * turn (docs/openai-conversations.md, "Background responses and resumable streams").
 */
@Injectable()
export class ResponseRunner implements OnModuleDestroy {
  /** This instance's name in the job table's lease. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly logger = new Logger('Responses');
  private readonly running = new Map<string, { stop: (reason: StopReason) => void; done: Promise<void> }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly invocation: InvocationService,
    private readonly store: ResponseEventStore,
    private readonly jobs: ResponseJobsRepository,
    private readonly states: ResponseStatesRepository,
    private readonly signals: ResponseSignals,
    private readonly config: AppConfig,
  ) {}

  get active(): number {
    return this.running.size;
  }

  /**
   * A streamed, stored, non-background response: stored as in_progress with a job this instance
   * holds, run at once; answers the stored events as they are stored. A failure before the first
   * chunk is thrown (the client gets a plain error), after it has been stored as the response's end.
   * `headers`: the invocation's own answer headers.
   */
  async runStreamed(
    caller: ProjectPrincipal,
    plan: ResponsePlan,
    signal?: AbortSignal,
  ): Promise<{ events: AsyncIterable<ResponseEvent>; headers: Record<string, string> }> {
    await this.dataSource.transaction(async (manager) => {
      await this.states.insertPending(manager, {
        projectId: caller.projectId,
        id: plan.uuid,
        previousResponseId: null,
        conversationId: plan.conversationId,
        input: plan.input,
        body: { ...pendingBody(plan), status: 'in_progress' },
        status: 'in_progress',
        background: false,
      });
      await this.jobs.insert(manager, {
        projectId: caller.projectId,
        id: plan.uuid,
        background: false,
        request: {},
        owner: this.owner,
        leaseMs: this.config.responseJobs.leaseMs,
      });
    });
    const queue = new EventQueue<ResponseEvent>();
    let headers: Record<string, string> = {};
    const started = this.start({
      caller,
      plan,
      background: false,
      startSequence: 0,
      signal,
      onStored: (events) => queue.push(events),
      onEnd: () => queue.end(),
      onHeaders: (answered) => (headers = answered),
    });
    await started;
    return { events: queue, headers };
  }

  /** A background response this instance claimed; resolves when it ended (never rejects). */
  async runJob(caller: ProjectPrincipal, plan: ResponsePlan, startSequence: number): Promise<void> {
    await this.start({ caller, plan, background: true, startSequence }).catch(() => undefined);
    await this.running.get(plan.uuid)?.done;
  }

  /** Resolves once the provider answered its first chunk (rejects with the call's failure); the run goes on. */
  private start(ctx: RunContext): Promise<void> {
    let settle!: (err?: unknown) => void;
    const started = new Promise<void>((resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))));
    const abort = new AbortController();
    let reason: StopReason | null = null;
    const stop = (why: StopReason) => {
      reason ??= why;
      abort.abort();
    };
    const done = this.execute(ctx, abort.signal, () => reason, stop, settle).finally(() => this.running.delete(ctx.plan.uuid));
    this.running.set(ctx.plan.uuid, { stop, done });
    return started;
  }

  private async execute(
    ctx: RunContext,
    signal: AbortSignal,
    reasonOf: () => StopReason | null,
    stop: (why: StopReason) => void,
    settle: (err?: unknown) => void,
  ): Promise<void> {
    const { caller, plan } = ctx;
    const offCancel = this.signals.onCancel(plan.uuid, () => stop('cancel'));
    const onClientGone = () => stop('client');
    ctx.signal?.addEventListener('abort', onClientGone);
    const writer = new ResponseEventWriter(
      this.dataSource,
      this.store,
      this.jobs,
      {
        projectId: caller.projectId,
        responseId: plan.uuid,
        owner: this.owner,
        leaseMs: this.config.responseJobs.leaseMs,
        flushMs: this.config.responseJobs.eventFlushMs,
        startSequence: ctx.startSequence,
      },
      { onStored: (events) => ctx.onStored?.(events), onStop: (why) => stop(why) },
    );
    const translator = new ResponseEventTranslator(plan.base, plan.outputOptions);
    let delivered: ResponseEvent[] = [];
    let settled = false;
    let ending: ReturnType<typeof completedEnd> | undefined;
    // May run twice (its group-committed batch retried): the end is made once.
    plan.prepared.input.recordWith = async (manager, completion) => {
      const end = (ending ??= plan.prepared.input.stream ? translator.finish(completion.usage) : completedEnd(plan, completion));
      const batch = await writer.flushIn(manager, end.events);
      if (
        !(await this.states.finish(
          manager,
          caller.projectId,
          plan.uuid,
          'in_progress',
          end.response.status,
          end.response as unknown as Record<string, unknown>,
          replyMessages(completion),
          plan.prepared.logId,
        ))
      )
        throw new NotRunningError();
      await this.jobs.remove(manager, caller.projectId, plan.uuid);
      delivered = batch;
    };
    try {
      writer.push(translator.start().filter((event) => !(ctx.background && event.type === 'response.created')));
      await writer.drain();
      const result = await this.invocation.run(caller, plan.prepared, signal);
      ctx.onHeaders?.(result.headers ?? {});
      settled = true;
      settle();
      if (result.type === 'stream') {
        for await (const chunk of result.chunks) writer.push(translator.push(chunk));
        await writer.drain();
        await result.finish();
      }
      writer.delivered(delivered);
    } catch (err) {
      await this.end(ctx, writer, translator, reasonOf() ?? (signal.aborted ? 'client' : null), err).catch((failure) =>
        this.logger.error(`could not store the end of response ${plan.uuid}: ${(failure as Error).message}`),
      );
      if (!settled) settle(err);
    } finally {
      writer.close();
      offCancel();
      ctx.signal?.removeEventListener('abort', onClientGone);
      ctx.onEnd?.();
    }
  }

  /** Stores how the run ended when it did not complete: cancelled, or failed with the reason. */
  private async end(
    ctx: RunContext,
    writer: ResponseEventWriter,
    translator: ResponseEventTranslator,
    reason: StopReason | null,
    err: unknown,
  ): Promise<void> {
    if (reason === 'lease' || err instanceof LeaseLostError) return; // another instance took it over
    const { caller, plan } = ctx;
    await writer.drain().catch(() => undefined);
    let stored: ResponseEvent[] = [];
    await this.dataSource.transaction(async (manager) => {
      const row = await this.states.lock(manager, caller.projectId, plan.uuid);
      if (!row || !(await this.jobs.renew(manager, caller.projectId, plan.uuid, this.owner, this.config.responseJobs.leaseMs))) return;
      if (row.status === 'cancelled') {
        const end = endEvents(row.body, { status: 'cancelled' });
        stored = await writer.flushIn(manager, end.events);
        await this.states.finish(manager, caller.projectId, plan.uuid, 'cancelled', 'cancelled', end.body);
      } else if (row.status === 'in_progress' || row.status === 'queued') {
        const error = reason === 'client' ? DISCONNECTED_ERROR : reason === 'shutdown' ? SHUTDOWN_ERROR : errorOf(err);
        const events = translator.failureEvents(error.code, error.message);
        const body = { ...(events[0].response as Record<string, unknown>), ...(ctx.background ? { background: true } : {}) };
        stored = await writer.flushIn(
          manager,
          events.map((event, i) => (i === 0 ? { ...event, response: body } : event)),
        );
        await this.states.finish(manager, caller.projectId, plan.uuid, row.status, 'failed', body);
      }
      await this.jobs.remove(manager, caller.projectId, plan.uuid);
    });
    writer.delivered(stored);
  }

  /** Graceful shutdown: runs still going are aborted and stored as failed (a takeover would fail them too, later). */
  async onModuleDestroy(): Promise<void> {
    const runs = [...this.running.values()];
    for (const run of runs) run.stop('shutdown');
    await Promise.race([Promise.all(runs.map((run) => run.done)), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }
}

/** The Response of a response that is stored before it ran: pending, as `response.created` shows it. */
export function pendingBody(plan: ResponsePlan): Record<string, unknown> {
  return pendingResponse(plan.base) as unknown as Record<string, unknown>;
}

function completedEnd(plan: ResponsePlan, completion: Parameters<typeof responseOf>[1]) {
  const response = responseOf(plan.base, completion, plan.outputOptions);
  return {
    response,
    events: [
      { type: response.status === 'completed' ? 'response.completed' : 'response.incomplete', sequence_number: 0, response },
    ] as ResponseEvent[],
  };
}

/** A failed response's `error` (`{code, message}`), from what made it fail. */
export function errorOf(err: unknown): { code: string; message: string } {
  if (err instanceof NotRunningError) return { code: 'server_error', message: 'The response changed status while it was being stored.' };
  const error = openaiErrorObjectOf(err);
  return { code: error.code ?? error.type, message: error.message };
}
