import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import type { DeployDto } from './dto/deployment.dto';
import type { DeploymentRequestAction, DeploymentRequestStatus, RequesterKind } from './dto/deployment-request.dto';

/** A deployment request with its prompt's and environment's slugs. */
export interface DeploymentRequestRow {
  id: string;
  status: DeploymentRequestStatus;
  /** What approving it does: deploy `request`, or undeploy `request.environment` (docs/registry.md, "Undeploying"). */
  action: DeploymentRequestAction;
  request: DeployDto | UndeployRequestBody | string;
  prompt_id: string;
  environment_id: string;
  prompt: string;
  environment: string;
  requested_by_kind: RequesterKind;
  requested_by_user_id: string | null;
  requested_by_key_id: string | null;
  requested_by_name: string | null;
  decided_by_user_id: string | null;
  decided_by_name: string | null;
  decided_at: Date | string | null;
  comment: string | null;
  deployment_id: string | null;
  created_at: Date | string;
}

/** Who asked, or decided: a person, a key, or the operator (the CLI on the database). */
export interface Requester {
  kind: RequesterKind;
  userId: string | null;
  keyId: string | null;
  /** The person's e-mail, the key's name, or `cli`. */
  name: string;
}

/** What an undeploy request holds: the environment to undeploy. */
export interface UndeployRequestBody {
  environment: string;
}

export interface NewDeploymentRequest {
  id: string;
  action: DeploymentRequestAction;
  promptId: string;
  environmentId: string;
  request: DeployDto | UndeployRequestBody;
  requester: Requester;
  createdAt: Date;
}

const ROW_SELECT = `
  SELECT r.id, r.status, r.action, r.request, r.prompt_id, r.environment_id, p.slug AS prompt, e.slug AS environment,
         r.requested_by_kind, r.requested_by_user_id, r.requested_by_key_id, r.requested_by_name,
         r.decided_by_user_id, r.decided_by_name, r.decided_at, r.comment, r.deployment_id, r.created_at
    FROM deployment_requests r
    JOIN prompts p ON p.project_id = r.project_id AND p.id = r.prompt_id
    JOIN environments e ON e.project_id = r.project_id AND e.id = r.environment_id`;

/** Deployment requests (docs/security.md, "Approvals"), every query scoped by project_id. */
@Injectable()
export class DeploymentRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, projectId: string, row: NewDeploymentRequest): Promise<void> {
    const { requester } = row;
    await manager.query(
      `INSERT INTO deployment_requests (project_id, id, prompt_id, environment_id, request, status, requested_by_kind,
                                        requested_by_user_id, requested_by_key_id, requested_by_name, created_at, action)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, $11)`,
      [
        projectId,
        row.id,
        row.promptId,
        row.environmentId,
        JSON.stringify(row.request),
        requester.kind,
        requester.userId,
        requester.keyId,
        requester.name,
        row.createdAt,
        row.action,
      ],
    );
  }

  async find(projectId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<DeploymentRequestRow | null> {
    const rows: DeploymentRequestRow[] = await manager.query(`${ROW_SELECT} WHERE r.project_id = $1 AND r.id = $2`, [projectId, id]);
    return rows[0] ?? null;
  }

  /** The request, its row locked in `manager`'s transaction until it commits (one decision at a time). */
  async lock(manager: EntityManager, projectId: string, id: string): Promise<DeploymentRequestRow | null> {
    const rows: DeploymentRequestRow[] = await manager.query(`${ROW_SELECT} WHERE r.project_id = $1 AND r.id = $2 FOR UPDATE OF r`, [
      projectId,
      id,
    ]);
    return rows[0] ?? null;
  }

  /** A pending request for exactly this deploy or undeploy (jsonb equality: key order aside), the oldest; null when none. */
  async findPendingSame(
    manager: EntityManager,
    projectId: string,
    promptId: string,
    environmentId: string,
    request: DeployDto | UndeployRequestBody,
    action: DeploymentRequestAction = 'deploy',
  ): Promise<DeploymentRequestRow | null> {
    const rows: DeploymentRequestRow[] = await manager.query(
      `${ROW_SELECT}
        WHERE r.project_id = $1 AND r.prompt_id = $2 AND r.environment_id = $3 AND r.status = 'pending' AND r.request = $4::jsonb
          AND r.action = $5
        ORDER BY r.id LIMIT 1`,
      [projectId, promptId, environmentId, JSON.stringify(request), action],
    );
    return rows[0] ?? null;
  }

  async decide(
    manager: EntityManager,
    projectId: string,
    id: string,
    decision: { status: Exclude<DeploymentRequestStatus, 'pending'>; by: Requester; comment: string | null; deploymentId: string | null },
  ): Promise<void> {
    await manager.query(
      `UPDATE deployment_requests
          SET status = $3, decided_by_user_id = $4, decided_by_name = $5, decided_at = now(), comment = $6, deployment_id = $7
        WHERE project_id = $1 AND id = $2 AND status = 'pending'`,
      [projectId, id, decision.status, decision.by.userId, decision.by.name, decision.comment, decision.deploymentId],
    );
  }

  /** Newest first, `limit + 1` rows (the extra one says another page exists); ids below `after`. */
  list(
    projectId: string,
    filter: { status?: DeploymentRequestStatus; prompt?: string; environment?: string; after?: string },
    limit: number,
  ): Promise<DeploymentRequestRow[]> {
    const params: unknown[] = [projectId];
    let where = 'r.project_id = $1';
    if (filter.status !== undefined) where += ` AND r.status = $${params.push(filter.status)}`;
    if (filter.prompt !== undefined) where += ` AND p.slug = $${params.push(filter.prompt)}`;
    if (filter.environment !== undefined) where += ` AND e.slug = $${params.push(filter.environment)}`;
    if (filter.after !== undefined) where += ` AND r.id < $${params.push(filter.after)}`;
    return this.dataSource.query(`${ROW_SELECT} WHERE ${where} ORDER BY r.id DESC LIMIT $${params.push(limit + 1)}`, params);
  }
}
