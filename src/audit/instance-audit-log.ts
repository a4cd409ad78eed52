import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { clientAddressOf } from '../common/http/wire-request';
import { newId } from '../common/ids';
import { currentAuditedRequest } from './audit-context';
import { withoutSecrets } from './audit-log';

/** Who acted, when the request being served does not say it: a sign-in (no principal yet), a SCIM call. */
export interface InstanceActor {
  kind: 'user' | 'scim' | 'anonymous' | 'operator' | 'system';
  userId?: string | null;
  email?: string | null;
  /** A SCIM token's id and name. */
  keyId?: string | null;
  keyName?: string | null;
}

/** One event above any single project (docs/security.md, "Audit trail"). */
export interface InstanceChange {
  /** The workspace it concerns; null for the instance itself (a workspace created by the instance admin is its own). */
  workspaceId: string | null;
  /** `<resource>.<verb>`, e.g. `workspace.created`, `member.removed`, `sign_in.failed`, `scim_user.deactivated`. */
  action: string;
  resourceType:
    'workspace' | 'project' | 'admin_key' | 'member' | 'group_role' | 'user' | 'sign_in' | 'scim_token' | 'scim_user' | 'scim_group';
  resourceId: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Given for sign-ins and SCIM; otherwise the caller of the request being served. */
  actor?: InstanceActor;
  /** Where the request came from; by default the address of the request being served (none for the CLI). */
  clientAddress?: string | null;
}

/**
 * The instance's own trail (`instance_audit_events`): workspaces, projects, workspace admin keys,
 * members, sign-ins and failed sign-ins, SCIM changes. Written in the change's transaction when
 * there is one (`manager`), so both commit or neither; a failed sign-in, which changes nothing,
 * is written on its own.
 */
@Injectable()
export class InstanceAuditLog {
  constructor(private readonly dataSource: DataSource) {}

  async record(manager: EntityManager | null, change: InstanceChange): Promise<void> {
    const request = currentAuditedRequest();
    const principal = request?.principal;
    const actor: InstanceActor = change.actor ?? {
      kind: principal?.user ? 'user' : ((principal?.kind as InstanceActor['kind'] | undefined) ?? 'operator'),
      userId: principal?.user?.id ?? null,
      email: principal?.user?.email ?? null,
      keyId: principal?.keyId ?? null,
      keyName: principal ? (principal.keyName ?? null) : 'cli',
    };
    await (manager ?? this.dataSource.manager).query(
      `INSERT INTO instance_audit_events (id, workspace_id, created_at, actor_kind, actor_key_id, actor_key_name, actor_user_id,
         actor_user_email, action, resource_type, resource_id, before, after, request_id, client_address)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        newId(),
        change.workspaceId,
        new Date(),
        actor.kind,
        actor.keyId ?? null,
        actor.keyName ?? null,
        actor.userId ?? null,
        actor.email ?? null,
        change.action,
        change.resourceType,
        change.resourceId,
        jsonOrNull(withoutSecrets(change.before)),
        jsonOrNull(withoutSecrets(change.after)),
        request?.id ?? null,
        change.clientAddress === undefined ? addressOf(request?.ip) : change.clientAddress,
      ],
    );
  }
}

const jsonOrNull = (value: Record<string, unknown> | null): string | null => (value === null ? null : JSON.stringify(value));

/** A request's address as the trail stores it: an IP address (an IPv4-mapped one as IPv4), or null. */
function addressOf(ip: unknown): string | null {
  const address = clientAddressOf(ip);
  return address === undefined ? null : (/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address);
}
