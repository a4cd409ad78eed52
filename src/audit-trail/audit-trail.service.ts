import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { AuditEventEntity } from '../audit/audit-event.entity';
import { isUuid } from '../common/ids';
import { pageLimit, toPage } from '../common/pagination';
import { AuditEventDto, AuditEventListDto, AuditQuery } from './audit-trail.dto';

const toAuditEventDto = (e: AuditEventEntity): AuditEventDto => ({
  id: e.id,
  object: 'audit_event',
  createdAt: e.createdAt.toISOString(),
  actor: { kind: e.actorKind, keyId: e.actorKeyId, keyName: e.actorKeyName, userId: e.actorUserId, email: e.actorUserEmail },
  action: e.action,
  resourceType: e.resourceType,
  resourceId: e.resourceId,
  before: e.before,
  after: e.after,
  requestId: e.requestId,
});

/**
 * GET /v2/audit: the project's audit events, newest first, keyset-paged on the primary key
 * (project_id, id), or on (project_id, actor_user_id, id) / (project_id, lower(actor_user_email), id)
 * when filtered by a person (partial indexes: the `IS NOT NULL` lets the planner use them).
 */
@Injectable()
export class AuditTrailService {
  constructor(@InjectRepository(AuditEventEntity) private readonly events: Repository<AuditEventEntity>) {}

  async list(projectId: string, query: AuditQuery): Promise<AuditEventListDto> {
    const limit = pageLimit(query);
    // A cursor that no event id can be matches nothing (ids are UUIDv7, made here).
    if (query.after !== undefined && !isUuid(query.after)) return { object: 'list', ...toPage([], limit) };
    const qb = this.events.createQueryBuilder('e').where('e.project_id = :projectId', { projectId });
    if (query.after) qb.andWhere('e.id < :after', { after: query.after });
    if (query.action) qb.andWhere('e.action = :action', { action: query.action });
    if (query.resourceType) qb.andWhere('e.resource_type = :resourceType', { resourceType: query.resourceType });
    if (query.resourceId) qb.andWhere('e.resource_id = :resourceId', { resourceId: query.resourceId });
    if (query.actorKeyId) qb.andWhere('e.actor_key_id = :actorKeyId', { actorKeyId: query.actorKeyId });
    if (query.actorUserId)
      qb.andWhere('e.actor_user_id IS NOT NULL AND e.actor_user_id = :actorUserId', { actorUserId: query.actorUserId });
    if (query.actorEmail)
      qb.andWhere('e.actor_user_email IS NOT NULL AND lower(e.actor_user_email) = lower(:actorEmail)', { actorEmail: query.actorEmail });
    if (query.requestId) qb.andWhere('e.request_id = :requestId', { requestId: query.requestId });
    const rows = await qb
      .orderBy('e.id', 'DESC')
      .limit(limit + 1)
      .getMany();
    return { object: 'list', ...toPage(rows.map(toAuditEventDto), limit) };
  }
}
