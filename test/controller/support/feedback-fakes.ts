import { randomUUID } from 'node:crypto';

import type { Principal, ProjectPrincipal } from '../../../src/auth/principal';
import { notFound } from '../../../src/common/errors';
import { uuidOfResponseId } from '../../../src/common/ids';
import { pageLimit, toPage } from '../../../src/common/pagination';
import type {
  FeedbackBody,
  FeedbackDto,
  FeedbackListDto,
  FeedbackQuery,
  FeedbackSummaryDto,
  FeedbackSummaryQuery,
} from '../../../src/feedback/feedback.dto';
import type { FeedbackRow } from '../../../src/feedback/feedback.repository';
import {
  checkListQuery,
  FEEDBACK_ERRORS,
  FeedbackService,
  sourceOf,
  toFeedbackDto,
  toSummaryRow,
} from '../../../src/feedback/feedback.service';
import type { RollupRow } from '../../../src/feedback/feedback-rollups';
import { Failing, FakeApiKeys, projectPrincipal } from './fakes';

/**
 * FeedbackService in memory, for test/controller/feedback.controller-spec.ts: the targets it knows
 * (one log, one thread, one response), feedback kept per target, name and source (sent again: the
 * same id), one prompt's rollups; the real messages of the real service, and its real functions
 * where no database is needed (the list query's rules, the DTO and summary mappers). The real
 * conditions against a database: test/feedback.e2e-spec.ts.
 */

/** Beside ./fakes.ts's four keys: `feedback:write` alone (gives feedback, reads none). */
export const FEEDBACK_KEYS = { writeOnly: 'ck-controller-feedback-write-1' } as const;

export class FeedbackApiKeys extends FakeApiKeys {
  private readonly writer = projectPrincipal(['feedback:write']);

  override async resolve(secret: string): Promise<Principal | null> {
    return secret === FEEDBACK_KEYS.writeOnly ? this.writer : super.resolve(secret);
  }
}

export const KNOWN = {
  log: '01990000-0000-7000-8000-00000000f001',
  thread: '01990000-0000-7000-8000-00000000f002',
  response: 'resp_0199000000007000800000000000f003',
} as const;

export class FakeFeedback extends Failing implements Pick<FeedbackService, 'submit' | 'list' | 'summary'> {
  private readonly rows = new Map<string, FeedbackRow>();
  readonly rollups: RollupRow[] = [];

  async submit(caller: ProjectPrincipal, body: FeedbackBody): Promise<FeedbackDto> {
    this.called('submit');
    const [type, id, missing] =
      body.logId !== undefined
        ? (['log', body.logId, FEEDBACK_ERRORS.logNotFound] as const)
        : body.threadId !== undefined
          ? (['thread', body.threadId, FEEDBACK_ERRORS.threadNotFound] as const)
          : (['response', body.responseId!, FEEDBACK_ERRORS.responseNotFound] as const);
    if (id !== KNOWN[type]) throw notFound(missing);
    const targetId = type === 'response' ? uuidOfResponseId(id)! : id;
    const source = sourceOf(caller);
    const key = JSON.stringify([type, targetId, body.name, source]);
    const now = new Date();
    const before = this.rows.get(key);
    const value = body.value;
    const row: FeedbackRow = {
      id: before?.id ?? randomUUID(),
      target_type: type,
      target_id: targetId,
      log_id: type === 'log' ? id : null,
      thread_id: type === 'thread' ? id : null,
      response_id: type === 'response' ? targetId : null,
      prompt_slug: 'support-reply',
      environment: 'production',
      version: 3,
      name: body.name,
      value_kind: typeof value === 'string' ? 'category' : typeof value === 'boolean' ? 'boolean' : 'number',
      value_number: typeof value === 'string' ? null : String(Number(value)),
      value_text: typeof value === 'string' ? value : null,
      comment: body.comment ?? null,
      source,
      created_at: before?.created_at ?? now,
      updated_at: now,
    };
    this.rows.set(key, row);
    return toFeedbackDto(row);
  }

  async list(_caller: ProjectPrincipal, query: FeedbackQuery): Promise<FeedbackListDto> {
    this.called('list');
    checkListQuery(query);
    const rows = [...this.rows.values()].sort((a, b) => (a.id < b.id ? 1 : -1)).filter((row) => !query.after || row.id < query.after);
    return { object: 'list', ...toPage(rows.map(toFeedbackDto), pageLimit(query)) };
  }

  async summary(_caller: ProjectPrincipal, query: FeedbackSummaryQuery): Promise<FeedbackSummaryDto> {
    this.called('summary');
    const data = query.prompt === 'support-reply' && query.environment === 'production' ? this.rollups.map(toSummaryRow) : [];
    return { object: 'feedback.summary', prompt: query.prompt, environment: query.environment, data };
  }
}
