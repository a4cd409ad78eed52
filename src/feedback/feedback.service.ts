import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { credentialOf, ProjectPrincipal } from '../auth/principal';
import { badRequest, notFound } from '../common/errors';
import { isUuid, newId, responseIdOf, uuidOfResponseId } from '../common/ids';
import { pageLimit, toPage } from '../common/pagination';
import { isSlugLike } from '../common/validation';
import {
  FeedbackBody,
  FeedbackDto,
  FeedbackListDto,
  FeedbackQuery,
  FeedbackSummaryDto,
  FeedbackSummaryQuery,
  FeedbackSummaryRowDto,
  FeedbackValue,
} from './feedback.dto';
import { FeedbackFilters, FeedbackRepository, FeedbackRow, FeedbackWrite } from './feedback.repository';
import { FeedbackRollups, RollupRow } from './feedback-rollups';
import { FeedbackTargets, ResolvedTarget } from './feedback-targets';
import { estimate } from './statistics';

/** The source of a console session's feedback: a person reviewing, apart from the application's key. */
export const CONSOLE_SOURCE = 'console';
/** The source of a live grader's score (docs/experiments.md, "Live graders"): never a key's id (a UUID) nor `env:<name>`. */
export const GRADER_SOURCE = 'grader';

export const FEEDBACK_ERRORS = {
  logNotFound: 'Request log not found',
  threadNotFound: 'Thread not found',
  responseNotFound: 'Response not found',
} as const;

/** Who gave the feedback: the console's session, else the key (the admin key from the environment, which has no id: `env:<name>`). */
export function sourceOf(caller: ProjectPrincipal): string {
  return caller.viaSession ? CONSOLE_SOURCE : credentialOf(caller);
}

function valueOf(row: FeedbackRow): FeedbackValue {
  if (row.value_kind === 'category') return row.value_text!;
  return row.value_kind === 'boolean' ? Number(row.value_number) === 1 : Number(row.value_number);
}

export function toFeedbackDto(row: FeedbackRow): FeedbackDto {
  return {
    id: row.id,
    object: 'feedback',
    target: { type: row.target_type, id: row.target_type === 'response' ? responseIdOf(row.target_id) : row.target_id },
    logId: row.log_id,
    threadId: row.thread_id,
    responseId: row.response_id && responseIdOf(row.response_id),
    prompt: row.prompt_slug,
    environment: row.environment,
    version: row.version,
    name: row.name,
    value: valueOf(row),
    comment: row.comment,
    source: row.source,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

function writeOf(target: ResolvedTarget, name: string, value: FeedbackValue, comment: string | null, source: string): FeedbackWrite {
  return {
    id: newId(),
    target,
    name,
    kind: typeof value === 'string' ? 'category' : typeof value === 'boolean' ? 'boolean' : 'number',
    number: typeof value === 'string' ? null : typeof value === 'boolean' ? (value ? '1' : '0') : String(value),
    text: typeof value === 'string' ? value : null,
    comment,
    source,
  };
}

/** The list query's rules across fields (its DTO checks each field): the 400s before any read. */
export function checkListQuery(query: FeedbackQuery): void {
  if (query.after !== undefined && !isUuid(query.after)) throw badRequest('Invalid request parameters', ['after: not a feedback id']);
  // A version is a prompt's: without the slug it would match across prompts.
  if (query.version !== undefined && query.prompt === undefined) throw badRequest('Invalid request parameters', ['version: needs prompt']);
}

/** A rollup as the summary answers it: the mean and its 95 % interval (statistics.ts), and the category counts. */
export function toSummaryRow(row: RollupRow): FeedbackSummaryRowDto {
  const n = row.numbers + row.booleans;
  const result = estimate({ n, sum: Number(row.value_sum), sumSquares: Number(row.value_sum_squares), booleans: row.numbers === 0 });
  return {
    version: row.version,
    name: row.name,
    kind: n === 0 ? 'category' : row.numbers === 0 ? 'boolean' : 'number',
    count: row.total,
    n,
    mean: result.mean,
    interval: result.interval && result.method ? { ...result.interval, method: result.method } : null,
    categories: row.categories,
  };
}

/**
 * Feedback on calls (docs/experiments.md, "Feedback"). Per-call data like the calls themselves:
 * not in the audit trail, which records configuration changes (docs/security.md, "Audit trail").
 */
@Injectable()
export class FeedbackService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly feedback: FeedbackRepository,
    private readonly rollups: FeedbackRollups,
    private readonly targets: FeedbackTargets,
  ) {}

  /** Stores (or replaces) the caller's feedback on the target, and its rollup, in one transaction. */
  async submit(caller: ProjectPrincipal, body: FeedbackBody): Promise<FeedbackDto> {
    const target = await this.resolve(caller.projectId, body);
    const [row] = await this.write(caller.projectId, [writeOf(target, body.name, body.value, body.comment ?? null, sourceOf(caller))]);
    return toFeedbackDto(row);
  }

  /**
   * Feedback Parley gives itself on a log (the live graders' scores: docs/experiments.md, "Live
   * graders"), each replacing that of the same name and `source`, with their rollups, in one
   * transaction. False when the project no longer has the log (nothing is written).
   */
  async recordOnLog(
    projectId: string,
    logId: string,
    source: string,
    entries: { name: string; value: number | boolean; comment: string | null }[],
  ): Promise<boolean> {
    const target = await this.targets.log(projectId, logId);
    if (!target) return false;
    await this.write(
      projectId,
      entries.map((entry) => writeOf(target, entry.name, entry.value, entry.comment, source)),
    );
    return true;
  }

  private write(projectId: string, writes: FeedbackWrite[]): Promise<FeedbackRow[]> {
    return this.dataSource.transaction(async (manager) => {
      const rows: FeedbackRow[] = [];
      for (const write of writes) {
        const { row, previous } = await this.feedback.upsert(manager, projectId, write);
        await this.rollups.apply(manager, projectId, previous, row);
        rows.push(row);
      }
      return rows;
    });
  }

  async list(caller: ProjectPrincipal, query: FeedbackQuery): Promise<FeedbackListDto> {
    checkListQuery(query);
    const filters = this.filtersOf(query);
    if (!filters) return { object: 'list', ...toPage([], 1) };
    const limit = pageLimit(query);
    const rows = await this.feedback.list(caller.projectId, filters, query.after, limit + 1);
    return { object: 'list', ...toPage(rows.map(toFeedbackDto), limit) };
  }

  /** Per version and name, from the rollups only (never the feedback rows). */
  async summary(caller: ProjectPrincipal, query: FeedbackSummaryQuery): Promise<FeedbackSummaryDto> {
    const rows = await this.rollups.of(caller.projectId, query.prompt, query.environment);
    return { object: 'feedback.summary', prompt: query.prompt, environment: query.environment, data: rows.map(toSummaryRow) };
  }

  private async resolve(projectId: string, body: FeedbackBody): Promise<ResolvedTarget> {
    const [found, missing] =
      body.logId !== undefined
        ? [await this.targets.log(projectId, body.logId), FEEDBACK_ERRORS.logNotFound]
        : body.threadId !== undefined
          ? [await this.targets.thread(projectId, body.threadId), FEEDBACK_ERRORS.threadNotFound]
          : [await this.responseTarget(projectId, body.responseId ?? ''), FEEDBACK_ERRORS.responseNotFound];
    if (!found) throw notFound(missing);
    return found;
  }

  private responseTarget(projectId: string, responseId: string): Promise<ResolvedTarget | null> {
    const uuid = uuidOfResponseId(responseId);
    return uuid ? this.targets.response(projectId, uuid) : Promise.resolve(null);
  }

  /**
   * The filters as stored values; null when one names what no feedback can hold (an id that is no
   * UUID or response id, a name, prompt or environment that is no slug): such a filter matches nothing.
   */
  private filtersOf(query: FeedbackQuery): FeedbackFilters | null {
    const responseId = query.responseId === undefined ? undefined : uuidOfResponseId(query.responseId);
    if (responseId === null) return null;
    if ([query.logId, query.threadId].some((id) => id !== undefined && !isUuid(id))) return null;
    if ([query.name, query.prompt, query.environment].some((slug) => slug !== undefined && !isSlugLike(slug))) return null;
    return {
      logId: query.logId,
      threadId: query.threadId,
      responseId,
      name: query.name,
      prompt: query.prompt,
      environment: query.environment,
      version: query.version === undefined ? undefined : Number(query.version),
    };
  }
}
