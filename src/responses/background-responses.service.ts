import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { credentialOf, ProjectPrincipal } from '../auth/principal';
import { openaiError } from '../common/errors';
import type { WireRequest } from '../common/http/wire-request';
import { AppConfig } from '../config/app-config';
import { ChangeNotifier } from '../database/changes';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { IDEMPOTENCY_MESSAGES, type StoredOutcome } from '../idempotency/idempotency.types';
import { withRequiredFields } from './response-base';
import { ResponseEventStore } from './response-event-store';
import type { ResponseEvent } from './response-events';
import { ResponseJobWorker } from './response-job-worker';
import { ResponseJobsRepository, StoredRequest } from './response-jobs.repository';
import type { ResponsePlan } from './response-plan';
import { ResponseResume } from './response-resume';
import { pendingBody, ResponseRunner } from './response-runner';
import { FINAL_STATUSES, ResponseStatesRepository } from './response-states.repository';
import { endEvents } from './response-terminal';
import { ResponsesRepository } from './responses.repository';
import { ResponsesBody, uuidOfResponseId } from './responses.schema';
import { ResponsesResult, ResponsesService } from './responses.service';
import { badParam } from './responses-request';

/** What the job's invocation reads of the headers: Parley's options, the request id and the trace context. */
const HEADERS_KEPT = /^(x-parley-|x-langtail-|x-request-id$|traceparent$|tracestate$)/;
/**
 * The headers stored with the job. While traces are exported, its traceparent is this request's
 * server span, so the job's spans join the request's trace (docs/observability.md, "Spans").
 */
function keptHeaders(request: WireRequest): Record<string, string> {
  const kept = Object.fromEntries(
    Object.entries(request.headers).filter(([name, value]) => HEADERS_KEPT.test(name) && typeof value === 'string'),
  ) as Record<string, string>;
  const traceparent = request.telemetry.carried();
  return traceparent ? { ...kept, traceparent } : kept;
}
/** Errors of an Idempotency-Key that cannot run, in OpenAI's shape. */
const IDEMPOTENCY_ERRORS = {
  inFlight: () => openaiError(409, IDEMPOTENCY_MESSAGES.inFlight, { param: 'Idempotency-Key' }),
  mismatch: () => openaiError(422, IDEMPOTENCY_MESSAGES.mismatch, { param: 'Idempotency-Key' }),
};
const REPLAYED = { 'Idempotent-Replayed': 'true' };
const responseNotFound = (id: string) =>
  openaiError(404, `Response with id '${id}' not found.`, { param: 'response_id', code: 'not_found' });

/**
 * `background: true` and cancel (docs/openai-conversations.md, "Background responses and
 * resumable streams"): the response is validated, stored as `queued` with its job and its first
 * events, and answered at once; this instance runs it when it has a free slot, any instance
 * otherwise. Cancel works from any instance: the running one hears it through NOTIFY.
 */
@Injectable()
export class BackgroundResponsesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly responses: ResponsesService,
    private readonly stored: ResponsesRepository,
    private readonly states: ResponseStatesRepository,
    private readonly jobs: ResponseJobsRepository,
    private readonly store: ResponseEventStore,
    private readonly runner: ResponseRunner,
    private readonly worker: ResponseJobWorker,
    private readonly resume: ResponseResume,
    private readonly changes: ChangeNotifier,
    private readonly config: AppConfig,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * With an Idempotency-Key, the queued response's id is the key's outcome, committed with the
   * response and its job: a retry after a lost answer gets the same response (as it now stands,
   * or its events from the start when streamed), and nothing runs twice (docs/openai-conversations.md).
   */
  async create(caller: ProjectPrincipal, body: ResponsesBody, request: WireRequest, signal?: AbortSignal): Promise<ResponsesResult> {
    const plan = await this.responses.plan(caller, request, body);
    if (!plan.base.store) throw badParam('background', 'Background responses must be stored: store cannot be false with background: true.');
    const key = plan.prepared.input.idempotencyKey;
    if (key) {
      const hash = this.idempotency.hashOf(request.url, request.body, credentialOf(caller));
      const claim = await this.idempotency.claim(caller.projectId, key, hash, IDEMPOTENCY_ERRORS);
      if (claim.type === 'replay') return this.replay(caller, claim.outcome, plan.body.stream === true, signal);
    }
    try {
      return await this.enqueue(caller, request, plan, key, signal);
    } catch (err) {
      if (key) await this.idempotency.settleFailure(caller.projectId, key, err);
      throw err;
    }
  }

  private async enqueue(
    caller: ProjectPrincipal,
    request: WireRequest,
    plan: ResponsePlan,
    key: string | undefined,
    signal?: AbortSignal,
  ): Promise<ResponsesResult> {
    const queued = { ...pendingBody(plan), status: 'queued' };
    const stored: StoredRequest = {
      caller,
      body: request.body as Record<string, unknown>,
      headers: keptHeaders(request),
      url: request.url,
      ip: request.ip ?? null,
      createdAt: plan.base.created_at,
    };
    const owner = this.worker.reserve() ? this.runner.owner : null;
    const first: ResponseEvent[] = [
      { type: 'response.created', sequence_number: 0, response: queued },
      { type: 'response.queued', sequence_number: 1, response: queued },
    ];
    await this.dataSource
      .transaction(async (manager) => {
        await this.states.insertPending(manager, {
          projectId: caller.projectId,
          id: plan.uuid,
          previousResponseId: plan.body.previous_response_id ? uuidOfResponseId(plan.body.previous_response_id) : null,
          conversationId: plan.conversationId,
          input: plan.input,
          body: queued,
          status: 'queued',
          background: true,
        });
        await this.jobs.insert(manager, {
          projectId: caller.projectId,
          id: plan.uuid,
          background: true,
          request: stored,
          owner,
          leaseMs: this.config.responseJobs.leaseMs,
        });
        await this.store.append(manager, caller.projectId, plan.uuid, first);
        if (!owner) await this.changes.publish({ kind: 'response-jobs' }, manager);
        if (key)
          await this.idempotency.complete(
            caller.projectId,
            key,
            { kind: 'response', status: 200, body: { responseId: plan.uuid } },
            manager,
          );
      })
      .catch((err: unknown) => {
        if (owner) this.worker.release();
        throw err;
      });
    if (owner) void this.worker.run({ projectId: caller.projectId, id: plan.uuid, background: true, request: stored });
    if (plan.body.stream === true)
      return { kind: 'events', events: this.resume.follow(caller.projectId, plan.uuid, -1, signal), headers: {} };
    return { kind: 'response', response: queued as never, headers: {} };
  }

  /** The response an earlier request with this key queued, as it stands now. */
  private async replay(caller: ProjectPrincipal, outcome: StoredOutcome, stream: boolean, signal?: AbortSignal): Promise<ResponsesResult> {
    const uuid = outcome.kind === 'response' ? (outcome.body as { responseId?: string } | null)?.responseId : undefined;
    const row = uuid ? await this.stored.findLive(caller.projectId, uuid) : null;
    if (!uuid || !row)
      throw openaiError(404, 'The response this Idempotency-Key created no longer exists.', {
        param: 'Idempotency-Key',
        code: 'not_found',
      });
    if (stream) return { kind: 'events', events: this.resume.follow(caller.projectId, uuid, -1, signal), headers: REPLAYED };
    return { kind: 'response', response: withRequiredFields(row.body), headers: REPLAYED };
  }

  /**
   * Cancels a queued or running background response: `cancelled` at once, the running instance
   * aborts its upstream call. A finished one is answered as it is (cancelling is idempotent, as
   * on OpenAI); a response that was not created in the background cannot be cancelled (400).
   */
  async cancel(caller: ProjectPrincipal, id: string): Promise<Record<string, unknown>> {
    const uuid = uuidOfResponseId(id);
    if (!uuid) throw responseNotFound(id);
    return this.dataSource.transaction(async (manager) => {
      const row = await this.states.lock(manager, caller.projectId, uuid);
      if (!row) throw responseNotFound(id);
      if (!row.background) throw openaiError(400, 'Cannot cancel a synchronous response.', { param: 'response_id' });
      if (FINAL_STATUSES.has(row.status)) return row.body;
      await this.states.markCancelled(manager, caller.projectId, uuid);
      const body = { ...row.body, status: 'cancelled' };
      if (await this.jobs.removeQueued(manager, caller.projectId, uuid)) {
        // Never claimed: nobody else will write its end.
        const end = endEvents(body, { status: 'cancelled' });
        const next = (await this.store.lastSequence(manager, caller.projectId, uuid)) + 1;
        await this.store.append(
          manager,
          caller.projectId,
          uuid,
          end.events.map((event, i) => ({ ...event, sequence_number: next + i })),
        );
        await this.states.finish(manager, caller.projectId, uuid, 'cancelled', 'cancelled', end.body);
      } else {
        await this.jobs.requestCancel(manager, caller.projectId, uuid);
        await this.changes.publish({ kind: 'response-cancel', responseId: uuid }, manager);
      }
      return body;
    });
  }

  /** `GET /v1/responses/{id}?stream=true&starting_after=N`: 404 unknown; 400 when nothing of it was streamed. */
  async stream(caller: ProjectPrincipal, id: string, startingAfter: number, signal?: AbortSignal): Promise<AsyncIterable<ResponseEvent>> {
    const uuid = uuidOfResponseId(id);
    if (!uuid || !(await this.stored.findLive(caller.projectId, uuid))) throw responseNotFound(id);
    if (!(await this.store.has(caller.projectId, uuid))) {
      throw openaiError(
        400,
        `Response '${id}' has no stored stream events: it was not streamed nor created in the background, or its events expired.`,
        { param: 'stream' },
      );
    }
    return this.resume.follow(caller.projectId, uuid, startingAfter, signal);
  }
}
