import { setMaxListeners } from 'node:events';

import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { ProjectPrincipal } from '../../auth/principal';
import type { ChatMessage } from '../../common/chat';
import { ApiException } from '../../common/errors';
import { InvocationService } from '../../invocation/invocation.service';
import { JobQueue } from '../../jobs/job-queue';
import { tokensFromOpenAI } from '../../providers';
import { PricesService } from '../../usage/pricing/prices.service';
import { DatasetsRepository, ItemRow } from '../datasets/datasets.repository';
import { evalWireFields } from '../eval-wire';
import type { GradedOutput } from '../graders/grader.schema';
import { Grading, runGradingContext } from '../graders/grading';
import type { PreparedTarget } from './run-target';
import { RunItemRow, RunRow, RunsRepository } from './runs.repository';

export interface RunExecutionDeps {
  dataSource: DataSource;
  datasets: DatasetsRepository;
  runs: RunsRepository;
  queue: JobQueue;
  invocation: InvocationService;
  grading: Grading;
  prices: PricesService;
  leaseMs: number;
}

/** Why a run stopped before its items were done. */
export type StopReason = { type: 'cancelled' } | { type: 'lease-lost' } | { type: 'failed'; message: string };

const FLUSH_ITEMS = 50;
const FLUSH_MS = 250;
const PAGE = 200;
/** The project's own limits (429) are waited out this long at most per wait; a longer wait (a spent budget) fails the run. */
const MAX_LIMIT_WAIT_S = 30;

/**
 * One run on the instance that holds its job (docs/evals.md, "Experiments"): the items the run has
 * not stored yet, `concurrency` at a time, each invoked through the invocation core as the run's
 * caller (its limits and budgets apply), graded, and stored in batches; each batch renews the
 * lease in its transaction and adds exactly what it stored to the totals. Cancelling (or losing
 * the lease) aborts the calls in flight: nothing after it is stored.
 */
export class RunExecution {
  private readonly logger = new Logger('Evals');
  private readonly abort = new AbortController();
  private stop: StopReason | null = null;
  private buffer: RunItemRow[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private lastFlush = Date.now();

  constructor(
    private readonly deps: RunExecutionDeps,
    private readonly caller: ProjectPrincipal,
    private readonly run: RunRow,
    private readonly owner: string,
  ) {
    // Every call in flight listens on this one signal (up to 64 at once): not a leak.
    setMaxListeners(0, this.abort.signal);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Stops the run's calls at once (a cancel notified by another instance, or this one). */
  halt(reason: StopReason): void {
    if (!this.stop) this.stop = reason;
    this.abort.abort();
  }

  /** Runs what is left; answers why it stopped, or null when every item is stored. */
  async execute(prepared: PreparedTarget): Promise<StopReason | null> {
    const heartbeat = setInterval(() => void this.renew(), Math.floor(this.deps.leaseMs / 4));
    heartbeat.unref();
    try {
      let after: string | null = null;
      const pending: ItemRow[] = [];
      let exhausted = false;
      const next = async (): Promise<ItemRow | null> => {
        while (pending.length === 0 && !exhausted && !this.stop) {
          const page = await this.deps.datasets.pendingItems(
            this.caller.projectId,
            this.run.dataset_id,
            this.run.dataset_version,
            this.run.id,
            after,
            PAGE,
          );
          if (page.length < PAGE) exhausted = true;
          if (page.length) after = page[page.length - 1].id;
          pending.push(...page);
        }
        return this.stop ? null : (pending.shift() ?? null);
      };
      // One page read at a time: workers wait for the same read instead of each starting one.
      let reading: Promise<ItemRow | null> | null = null;
      const take = async (): Promise<ItemRow | null> => {
        while (reading) await reading;
        if (pending.length) return this.stop ? null : pending.shift()!;
        reading = next();
        try {
          return await reading;
        } finally {
          reading = null;
        }
      };
      const worker = async () => {
        for (let item = await take(); item; item = await take()) {
          const row = await this.runItem(prepared, item);
          if (!row || this.stop) return;
          this.buffer.push(row);
          if (this.buffer.length >= FLUSH_ITEMS || Date.now() - this.lastFlush >= FLUSH_MS) await this.flush();
        }
      };
      await Promise.all(Array.from({ length: this.run.concurrency }, worker));
      if (!this.stop) await this.flush();
      await this.flushing.catch(() => undefined);
      return this.stop;
    } catch (err) {
      this.halt({ type: 'failed', message: (err as Error).message });
      return this.stop;
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async renew(): Promise<void> {
    try {
      const lease = await this.deps.queue.renew(null, this.caller.projectId, this.run.id, this.owner, this.deps.leaseMs);
      if (!lease) this.halt({ type: 'lease-lost' });
      else if (lease.cancelRequested) this.halt({ type: 'cancelled' });
    } catch (err) {
      this.logger.warn(`run ${this.run.id}: could not renew its lease: ${(err as Error).message}`);
    }
  }

  /** Stores the buffered items, one batch at a time, with the lease renewed in the same transaction. */
  private flush(): Promise<void> {
    const batch = this.buffer;
    this.buffer = [];
    this.lastFlush = Date.now();
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0 || this.stop) return;
      await this.deps.dataSource.transaction(async (manager) => {
        const lease = await this.deps.queue.renew(manager, this.caller.projectId, this.run.id, this.owner, this.deps.leaseMs);
        if (!lease) return this.halt({ type: 'lease-lost' });
        if (lease.cancelRequested) return this.halt({ type: 'cancelled' });
        await this.deps.runs.storeItems(manager, this.caller.projectId, this.run.id, batch);
      });
    });
    return this.flushing;
  }

  /** One item: invoked, graded; null when the run stopped meanwhile (the item is left for no one: the run is over or another instance holds it). */
  private async runItem(prepared: PreparedTarget, item: ItemRow): Promise<RunItemRow | null> {
    const variables = { ...prepared.variableDefaults, ...item.variables };
    const startedAt = Date.now();
    let completion;
    let logId: string | null = null;
    for (let attempt = 0; ; attempt++) {
      try {
        const prepare = await this.deps.invocation.prepare(this.caller, {
          target: prepared.target,
          messages: item.messages as ChatMessage[],
          ...(prepared.template ? { template: prepared.template } : {}),
          variables,
          overrides: prepared.overrides,
          thread: null,
          stream: false,
          doNotRecord: false,
          metadata: { parley_eval_run: this.run.id, parley_eval_item: item.id },
          log: { requestData: { variables: item.variables, messages: item.messages }, ...evalWireFields(this.run.id) },
        });
        logId = prepare.logId;
        const result = await this.deps.invocation.run(this.caller, prepare, this.signal);
        if (result.type !== 'completion') throw new Error('an experiment call does not stream');
        completion = result.completion;
        break;
      } catch (err) {
        if (this.stop) return null;
        const wait = limitWaitOf(err);
        if (wait !== null && attempt < 20) {
          if (wait > MAX_LIMIT_WAIT_S) {
            this.halt({ type: 'failed', message: `stopped by the project's limits: ${messageOf(err)}` });
            return null;
          }
          await sleep(wait * 1000, this.signal);
          if (this.stop) return null;
          continue;
        }
        return this.errored(item, logId, Date.now() - startedAt, messageOf(err));
      }
    }
    const latencyMs = Date.now() - startedAt;
    const message = completion.choices[0]?.message;
    const tokens = completion.usage ? tokensFromOpenAI(completion.usage) : undefined;
    const cost = await this.deps.prices.costOf(
      this.caller.projectId,
      prepared.target.provider,
      completion.model ?? prepared.target.model,
      tokens,
    );
    const output: GradedOutput = {
      text: typeof message?.content === 'string' ? message.content : '',
      toolCalls: (message?.tool_calls ?? []).flatMap((call) =>
        'function' in call ? [{ name: call.function.name, arguments: call.function.arguments }] : [],
      ),
      latencyMs,
      costUsd: cost.costUsd === null ? null : Number(cost.costUsd),
      finishReason: completion.choices[0]?.finish_reason ?? null,
    };
    const scores = await this.deps.grading.grade(
      this.caller,
      this.run.graders,
      { variables, messages: item.messages, expected: item.expected },
      output,
      runGradingContext(this.run.id, this.signal),
    );
    if (this.stop) return null;
    return {
      item_id: item.id,
      status: 'ok',
      output: { text: output.text, toolCalls: output.toolCalls, finishReason: output.finishReason },
      scores,
      passed: scores.every((score) => score.passed),
      score: scores.reduce((sum, score) => sum + score.score, 0) / scores.length,
      error: null,
      log_id: logId,
      prompt_tokens: completion.usage?.prompt_tokens ?? null,
      completion_tokens: completion.usage?.completion_tokens ?? null,
      cost_usd: cost.costUsd,
      latency_ms: latencyMs,
      created_at: new Date(),
    };
  }

  /** An item whose call failed: every grader fails it with the call's error (it has no output to grade). */
  private errored(item: ItemRow, logId: string | null, latencyMs: number, error: string): RunItemRow {
    return {
      item_id: item.id,
      status: 'error',
      output: null,
      scores: this.run.graders.map((grader) => ({
        grader: grader.name,
        score: 0,
        passed: false,
        reason: `no output: ${error}`.slice(0, 2000),
      })),
      passed: false,
      score: 0,
      error: error.slice(0, 2000),
      log_id: logId,
      prompt_tokens: null,
      completion_tokens: null,
      cost_usd: null,
      latency_ms: latencyMs,
      created_at: new Date(),
    };
  }
}

function messageOf(err: unknown): string {
  if (err instanceof ApiException) {
    const body = err.body as { message?: unknown; error?: { message?: unknown } };
    const message = typeof body.message === 'string' ? body.message : typeof body.error?.message === 'string' ? body.error.message : null;
    return `${err.getStatus()}: ${message ?? 'refused'}`;
  }
  return (err as Error).message ?? String(err);
}

/** The seconds a 429 of the project's own limits asks to wait (its Retry-After), or null for any other failure. */
function limitWaitOf(err: unknown): number | null {
  if (!(err instanceof ApiException) || err.getStatus() !== 429) return null;
  const retryAfter = Number(err.headers['Retry-After']);
  return Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
