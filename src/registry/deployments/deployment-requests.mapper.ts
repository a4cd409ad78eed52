import type { Principal } from '../../auth/principal';
import { DeploymentRequestRow, Requester } from './deployment-requests.repository';
import type { PreparedDeploy } from './deployments.service';
import type { DeployDto } from './dto/deployment.dto';
import { DeploymentRequestActorDto, DeploymentRequestDto } from './dto/deployment-request.dto';

/**
 * Who is asking, as a request records it: the person behind a console session, a key (a project
 * key, or an admin key acting in the project), or, with no request being served, the operator (the
 * CLI on the database).
 */
export function requesterOf(principal: Principal | undefined): Requester {
  if (!principal) return { kind: 'operator', userId: null, keyId: null, name: 'cli' };
  if (principal.user) return { kind: 'user', userId: principal.user.id, keyId: null, name: principal.user.email };
  return { kind: 'key', userId: null, keyId: principal.keyId, name: principal.keyName ?? 'unnamed key' };
}

/** Whether `who` made the request (the same person, or the same key). */
export function isRequester(row: DeploymentRequestRow, who: Requester): boolean {
  if (who.kind !== row.requested_by_kind) return false;
  if (who.kind === 'user') return who.userId === row.requested_by_user_id;
  return who.keyId === row.requested_by_key_id && (who.keyId !== null || who.name === row.requested_by_name);
}

/**
 * The deploy a request holds, as approving it will run it: the version resolved (a body without
 * one asked for the newest, at that moment), a split's defaults filled in. Two identical deploys
 * give the same body, so a pending one is found again (DeploymentRequestsRepository.findPendingSame).
 */
export function requestBodyOf(prepared: PreparedDeploy): DeployDto {
  const { environment, version, split } = prepared;
  if (!split) return { environment: environment.slug, version: version.version };
  return {
    environment: environment.slug,
    split: split.arms,
    stickyBy: split.stickyBy,
    rules: split.rules,
    ...(split.guards ? { guards: split.guards } : {}),
  };
}

export function toDeploymentRequestDto(row: DeploymentRequestRow): DeploymentRequestDto {
  const requestedBy: DeploymentRequestActorDto = {
    kind: row.requested_by_kind,
    id: row.requested_by_user_id ?? row.requested_by_key_id,
    name: row.requested_by_name ?? '',
  };
  return {
    object: 'deployment_request',
    id: row.id,
    status: row.status,
    action: row.action ?? 'deploy',
    prompt: row.prompt,
    environment: row.environment,
    request: typeof row.request === 'string' ? (JSON.parse(row.request) as DeployDto) : row.request,
    requestedBy,
    createdAt: new Date(row.created_at).toISOString(),
    // A person approves or rejects; only a cancel (by the requester, maybe a key) has no user id.
    decidedBy:
      row.decided_at === null
        ? null
        : row.decided_by_user_id !== null
          ? { kind: 'user', id: row.decided_by_user_id, name: row.decided_by_name ?? '' }
          : { ...requestedBy, name: row.decided_by_name ?? requestedBy.name },
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at).toISOString(),
    comment: row.comment,
    deploymentId: row.deployment_id,
  };
}
