import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';

import { insertOf } from '../database/fast-insert';
import { runStatement } from '../database/prepared-statements';
import { RequestLogEntity } from './request-log.entity';
import { withRollups } from './usage-rollups';

export interface LogFilters {
  slug?: string;
  environment?: string;
  version?: number;
  model?: string;
  provider?: string;
  keyId?: string;
  threadId?: string;
  requestId?: string;
  status?: { exact: number } | { success: boolean };
  from?: Date;
  to?: Date;
  metadata?: { key: string; value: string };
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
    const heavy = new Set(['providerRequest', 'providerResponse', 'threadRange']);
    this.listed ??= this.logs.metadata.columns.filter((c) => !heavy.has(c.propertyName)).map((c) => `l.${c.propertyName}`);
    return this.listed;
  }

  /** Keyset page by id (time-ordered), newest first by default, every filter scoped to the project. */
  list(
    projectId: string,
    filters: LogFilters,
    order: 'asc' | 'desc',
    afterId: string | undefined,
    take: number,
  ): Promise<RequestLogEntity[]> {
    const qb = this.logs.createQueryBuilder('l').select(this.listColumns()).where('l.project_id = :projectId', { projectId });
    if (filters.slug !== undefined) qb.andWhere('l.prompt_slug = :slug', { slug: filters.slug });
    if (filters.environment !== undefined) qb.andWhere('l.environment = :environment', { environment: filters.environment });
    if (filters.version !== undefined) qb.andWhere('l.version = :version', { version: filters.version });
    if (filters.model !== undefined) qb.andWhere('l.model = :model', { model: filters.model });
    if (filters.provider !== undefined) qb.andWhere('l.provider_name = :provider', { provider: filters.provider });
    if (filters.keyId !== undefined) qb.andWhere('l.api_key_id = :keyId', { keyId: filters.keyId });
    if (filters.threadId !== undefined) qb.andWhere('l.thread_id = :threadId', { threadId: filters.threadId });
    if (filters.requestId !== undefined) qb.andWhere('l.request_id = :requestId', { requestId: filters.requestId });
    if (filters.status && 'exact' in filters.status) qb.andWhere('l.status = :status', { status: filters.status.exact });
    if (filters.status && 'success' in filters.status) {
      qb.andWhere(filters.status.success ? 'l.status BETWEEN 200 AND 299' : 'l.status NOT BETWEEN 200 AND 299');
    }
    if (filters.from) qb.andWhere('l.started_at >= :from', { from: filters.from });
    if (filters.to) qb.andWhere('l.started_at < :to', { to: filters.to });
    if (filters.metadata) {
      // Containment only, which the GIN index answers (a `->>` comparison beside it would make every
      // such query scan the project's logs): the value as a string, and as a number when it is one.
      const { key, value } = filters.metadata;
      const asNumber = Number(value);
      const numeric = Number.isFinite(asNumber) && String(asNumber) === value;
      qb.andWhere(numeric ? '(l.metadata @> :asText::jsonb OR l.metadata @> :asNumber::jsonb)' : 'l.metadata @> :asText::jsonb', {
        asText: JSON.stringify({ [key]: value }),
        asNumber: JSON.stringify({ [key]: asNumber }),
      });
    }
    if (afterId) qb.andWhere(order === 'desc' ? 'l.id < :afterId' : 'l.id > :afterId', { afterId });
    return qb
      .orderBy('l.id', order === 'desc' ? 'DESC' : 'ASC')
      .take(take)
      .getMany();
  }
}
