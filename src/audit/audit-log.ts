import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { newId } from '../common/ids';
import { currentAuditedRequest } from './audit-context';
import { AuditEventEntity } from './audit-event.entity';

/** What changed; the caller states `before`/`after` from its own DTO-like views, which carry no secret. */
export interface AuditChange {
  projectId: string;
  /** `system`: the server's own change (a tripped guard, docs/experiments.md "Guards"), whatever request is being served. */
  actor?: 'system';
  /** `<resource>.<verb>`, e.g. `prompt.created`, `api_key.revoked`. */
  action: string;
  resourceType:
    | 'prompt'
    | 'version'
    | 'deployment'
    | 'environment'
    | 'provider'
    | 'api_key'
    | 'limits'
    | 'dataset'
    | 'grader'
    | 'eval_run'
    | 'settings'
    | 'deployment_request';
  resourceId: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** Fields that can hold a secret: dropped from before/after whatever a caller passes (defence in depth). */
const SECRET_FIELDS = /^(apiKey|key|secret|token|keyHash|apiKeyCiphertext|api_key_ciphertext|key_hash|password)$/i;

export function withoutSecrets(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!value) return null;
  return Object.fromEntries(Object.entries(value).filter(([name]) => !SECRET_FIELDS.test(name)));
}

/**
 * Writes audit events (docs/security.md, "Audit trail"), in the transaction of the change they
 * describe: both commit or neither. Who made it comes from the request being served (the key's id
 * and name, the request id); outside a request it is the operator (the CLI on the database).
 */
@Injectable()
export class AuditLog {
  async record(manager: EntityManager, change: AuditChange): Promise<void> {
    const request = change.actor === 'system' ? undefined : currentAuditedRequest();
    const principal = request?.principal;
    const event: AuditEventEntity = {
      projectId: change.projectId,
      id: newId(),
      createdAt: new Date(),
      // An admin key acting in a project (X-Parley-Project) is still the admin key; a person is a user wherever they act.
      actorKind: change.actor ?? (principal?.user ? 'user' : principal?.actingAdmin ? 'admin' : (principal?.kind ?? 'operator')),
      actorKeyId: principal?.keyId ?? null,
      actorKeyName: principal ? (principal.keyName ?? null) : change.actor ? null : 'cli',
      actorUserId: principal?.user?.id ?? null,
      actorUserEmail: principal?.user?.email ?? null,
      action: change.action,
      resourceType: change.resourceType,
      resourceId: change.resourceId,
      before: withoutSecrets(change.before),
      after: withoutSecrets(change.after),
      requestId: request?.id ?? null,
    };
    // TypeORM's deep-partial type does not accept jsonb records as they are.
    await manager.getRepository(AuditEventEntity).insert(event as QueryDeepPartialEntity<AuditEventEntity>);
  }
}
