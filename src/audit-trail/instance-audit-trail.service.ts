import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { Principal } from '../auth/principal';
import { notFound } from '../common/errors';
import { isUuid } from '../common/ids';
import { pageLimit, toPage } from '../common/pagination';
import { InstanceAuditEventDto, InstanceAuditEventListDto, InstanceAuditQuery } from './instance-audit-trail.dto';

interface InstanceAuditRow {
  id: string;
  workspace_slug: string | null;
  created_at: Date | string;
  actor_kind: string;
  actor_key_id: string | null;
  actor_key_name: string | null;
  actor_user_id: string | null;
  actor_user_email: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  before: Record<string, unknown> | string | null;
  after: Record<string, unknown> | string | null;
  request_id: string | null;
  client_address: string | null;
}

const json = (value: Record<string, unknown> | string | null): Record<string, unknown> | null =>
  typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : value;

const toDto = (row: InstanceAuditRow): InstanceAuditEventDto => ({
  id: row.id,
  object: 'instance_audit_event',
  createdAt: new Date(row.created_at).toISOString(),
  workspace: row.workspace_slug,
  actor: {
    kind: row.actor_kind,
    keyId: row.actor_key_id,
    keyName: row.actor_key_name,
    userId: row.actor_user_id,
    email: row.actor_user_email,
  },
  action: row.action,
  resourceType: row.resource_type,
  resourceId: row.resource_id,
  before: json(row.before),
  after: json(row.after),
  requestId: row.request_id,
  clientAddress: row.client_address,
});

/**
 * GET /v2/admin/audit: the instance's own trail (docs/security.md, "Audit trail"), newest first,
 * keyset-paged on the primary key (id), or on (workspace_id, id) for one workspace's, or on the
 * partial indexes of the person who acted (migration 1765960000000).
 */
@Injectable()
export class InstanceAuditTrailService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Principal, query: InstanceAuditQuery): Promise<InstanceAuditEventListDto> {
    const workspaceId = await this.workspaceOf(caller, query.workspace);
    const limit = pageLimit(query);
    // A cursor that no event id can be matches nothing (ids are UUIDv7, made here).
    if (query.after !== undefined && !isUuid(query.after)) return { object: 'list', ...toPage([], limit) };
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (condition: (placeholder: string) => string, value: unknown) => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (workspaceId !== null) add((p) => `e.workspace_id = ${p}`, workspaceId);
    if (query.after) add((p) => `e.id < ${p}`, query.after);
    if (query.action) add((p) => `e.action = ${p}`, query.action);
    if (query.resourceType) add((p) => `e.resource_type = ${p}`, query.resourceType);
    if (query.actorUserId) add((p) => `e.actor_user_id IS NOT NULL AND e.actor_user_id = ${p}`, query.actorUserId);
    if (query.actorEmail) add((p) => `e.actor_user_email IS NOT NULL AND lower(e.actor_user_email) = lower(${p})`, query.actorEmail);
    if (query.since) add((p) => `e.created_at >= ${p}`, new Date(query.since));
    if (query.until) add((p) => `e.created_at < ${p}`, new Date(query.until));
    params.push(limit + 1);
    const rows: InstanceAuditRow[] = await this.dataSource.query(
      `SELECT e.*, w.slug AS workspace_slug
         FROM instance_audit_events e
         LEFT JOIN workspaces w ON w.id = e.workspace_id
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY e.id DESC
        LIMIT $${params.length}`,
      params,
    );
    return { object: 'list', ...toPage(rows.map(toDto), limit) };
  }

  /**
   * Whose events the caller reads: a workspace's admin (key or person) their workspace's only,
   * whatever `workspace` names (another is not found, as on every admin route); the instance's
   * admin every event, or the named workspace's. Null: every event.
   */
  private async workspaceOf(caller: Principal, slug: string | undefined): Promise<string | null> {
    if (caller.workspaceId !== null) {
      if (slug !== undefined && slug !== caller.workspaceSlug) throw notFound('Workspace not found');
      return caller.workspaceId;
    }
    if (slug === undefined) return null;
    const [workspace] = (await this.dataSource.query('SELECT id FROM workspaces WHERE slug = $1', [slug])) as { id: string }[];
    if (!workspace) throw notFound('Workspace not found');
    return workspace.id;
  }
}
