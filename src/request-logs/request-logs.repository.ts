import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';

import { insertOf } from '../database/fast-insert';
import { runStatement } from '../database/prepared-statements';
import { RequestLogEntity } from './request-log.entity';
import { filterConditions, LogFilters } from './request-log-filters';
import { logPreviewSelects, RawLogPreview } from './request-log-preview';
import { SEARCH_WINDOW, searchSql, SLICE_GROWTH } from './request-log-search';
import { withRollups } from './usage-rollups';

/** A log of a list page, with what its preview columns read (request-log-preview.ts). */
export interface ListedLog {
  log: RequestLogEntity;
  preview: RawLogPreview | undefined;
}

@Injectable()
export class RequestLogsRepository {
  constructor(@InjectRepository(RequestLogEntity) private readonly logs: Repository<RequestLogEntity>) {}

  insert(log: RequestLogEntity, manager?: EntityManager): Promise<RequestLogEntity> {
    return this.insertWithRollups(manager ?? this.logs.manager, [log]).then(() => log);
  }

  /** One multi-row INSERT, in the caller's transaction when `manager` is given (a group commit's flush). */
  insertMany(logs: RequestLogEntity[], manager: EntityManager = this.logs.manager): Promise<void> {
    return this.insertWithRollups(manager, logs);
  }

  /**
   * A plain INSERT (not save(), which would SELECT first), its SQL built once, and the usage
   * rollups of the rows in the same statement (usage-rollups.ts): on every invoke.
   */
  private async insertWithRollups(manager: EntityManager, logs: RequestLogEntity[]): Promise<void> {
    if (logs.length === 0) return;
    const { sql, parameters } = withRollups(insertOf(manager, RequestLogEntity, logs), logs.length);
    await runStatement(manager, sql, parameters);
  }

  findById(projectId: string, id: string): Promise<RequestLogEntity | null> {
    return this.logs.findOne({ where: { projectId, id } });
  }

  private listed: string[] | undefined;

  /** A list shows no provider request or response: they stay unread (and, being large, TOASTed away). */
  private listColumns(): string[] {
    const heavy = new Set(['providerRequest', 'providerResponse', 'threadRange', 'attempts']);
    this.listed ??= this.logs.metadata.columns.filter((c) => !heavy.has(c.propertyName)).map((c) => `l.${c.propertyName}`);
    return this.listed;
  }

  /** Keyset page by id (time-ordered), newest first by default, every filter scoped to the project. */
  list(projectId: string, filters: LogFilters, order: 'asc' | 'desc', afterId: string | undefined, take: number): Promise<ListedLog[]> {
    return this.withPreviews(this.listQuery(projectId, filters, order, afterId, take));
  }

  /** The list's query itself, previews included, exposed so its plan can be checked (test/list-previews-plans.serial.e2e-spec.ts). */
  listQuery(
    projectId: string,
    filters: LogFilters,
    order: 'asc' | 'desc',
    afterId: string | undefined,
    take: number,
  ): SelectQueryBuilder<RequestLogEntity> {
    const qb = this.listedQuery().where('l.project_id = :projectId', { projectId });
    const { keyset, other, parameters } = filterConditions('l', filters);
    for (const condition of [...keyset, ...other]) qb.andWhere(condition);
    qb.setParameters(parameters);
    if (afterId) qb.andWhere(order === 'desc' ? 'l.id < :afterId' : 'l.id > :afterId', { afterId });
    return qb.orderBy('l.id', order === 'desc' ? 'DESC' : 'ASC').take(take);
  }

  /** The list's columns and the previews' (computed for the rows returned only). */
  private listedQuery(): SelectQueryBuilder<RequestLogEntity> {
    const qb = this.logs.createQueryBuilder('l').select(this.listColumns());
    for (const [expression, alias] of logPreviewSelects('l')) qb.addSelect(expression, alias);
    return qb;
  }

  /** One statement: the entities, and each one's preview columns from the same rows. */
  private async withPreviews(qb: SelectQueryBuilder<RequestLogEntity>): Promise<ListedLog[]> {
    const { entities, raw } = await qb.getRawAndEntities<RawLogPreview & { l_id: string }>();
    const previews = new Map(raw.map((row) => [row.l_id, row]));
    return entities.map((log) => ({ log, preview: previews.get(log.id) }));
  }

  /**
   * A page of the logs whose text matches `q` (websearch syntax), filtered, keyset-paged and
   * ordered as `list`: the ids by searchSql's bounded queries (the window, then slices), then the
   * rows by primary key.
   */
  async search(
    projectId: string,
    filters: LogFilters,
    q: string,
    order: 'asc' | 'desc',
    afterId: string | undefined,
    take: number,
  ): Promise<ListedLog[]> {
    const sql = searchSql(projectId, filters, q, order, afterId);
    const found = new Set((await this.run(sql.recent, { ...sql.parameters, take })).map((row) => row.id));
    const boundary = async (from: 'cursor' | 'upper', offset: number, upper?: string): Promise<string | undefined> =>
      (await this.run(sql.boundary(from), { ...sql.parameters, offset, upper }))[0]?.id;
    let upper = found.size < take ? await boundary('cursor', SEARCH_WINDOW - 1) : undefined;
    // The slice past the window, then the rest (lower undefined): searchSql says why two.
    for (let part = 0; upper !== undefined && found.size < take; part++) {
      const lower = part === 0 ? await boundary('upper', SEARCH_WINDOW * SLICE_GROWTH - 1, upper) : undefined;
      const rest = take - found.size;
      // A Set: a log written meanwhile moves the window's boundary, so its last log can come again.
      for (const row of await this.run(sql.slice(lower !== undefined), { ...sql.parameters, upper, lower, rest })) found.add(row.id);
      upper = lower;
    }
    if (found.size === 0) return [];
    return this.withPreviews(
      this.listedQuery()
        .where('l.project_id = :projectId AND l.id IN (:...ids)', { projectId, ids: [...found].slice(0, take) })
        .orderBy('l.id', order === 'desc' ? 'DESC' : 'ASC'),
    );
  }

  /** SQL with `:name` parameters, run as it stands (its plan is its own: see searchSql). */
  private run(sql: string, parameters: Record<string, unknown>): Promise<{ id: string }[]> {
    const [text, values] = this.logs.manager.connection.driver.escapeQueryWithParameters(sql, parameters, {});
    return this.logs.manager.query(text, values);
  }
}
