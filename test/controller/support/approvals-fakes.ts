import { randomUUID } from 'node:crypto';

import type { EntityManager } from 'typeorm';

import type { Principal, ProjectPrincipal } from '../../../src/auth/principal';
import { ROLE_SCOPES } from '../../../src/auth/roles';
import { invalidBody, notFound } from '../../../src/common/errors';
import type { DeploymentRequestRow, NewDeploymentRequest } from '../../../src/registry/deployments/deployment-requests.repository';
import type { DeploymentsService, PreparedDeploy } from '../../../src/registry/deployments/deployments.service';
import type { DeployDto, DeploymentDto } from '../../../src/registry/deployments/dto/deployment.dto';
import { EnvironmentEntity } from '../../../src/registry/environments/environment.entity';
import type { PromptEntity } from '../../../src/registry/prompts/prompt.entity';
import type { PromptVersionEntity } from '../../../src/registry/prompts/prompt-version.entity';
import { FakeApiKeys, PROJECT_ID, projectPrincipal } from './fakes';

/**
 * What the approvals' real services (DeploymentRequestsService, EnvironmentProtectionService) read
 * and write, in memory, for test/controller/approvals.controller-spec.ts: one prompt
 * (`support-reply`, production running v3 of 4), environments with each protection, the requests'
 * rows, and people as the guard makes them from a session (a principal with `user`: their role's
 * scopes, no key). The real conditions: test/protected-environments.e2e-spec.ts.
 */

export const PEOPLE = {
  ana: { id: '01990000-0000-7000-8000-0000000000a1', email: 'ana@example.com', name: 'Ana' },
  ben: { id: '01990000-0000-7000-8000-0000000000b1', email: 'ben@example.com', name: 'Ben' },
};

/** Beside ./fakes.ts's four keys: two deployers, a viewer, a project admin (people), a key with registry:read alone. */
export const APPROVAL_KEYS = {
  ana: 'ck-controller-person-ana-01',
  ben: 'ck-controller-person-ben-01',
  viewer: 'ck-controller-person-viewer',
  projectAdmin: 'ck-controller-person-admin1',
  readOnly: 'ck-controller-registry-read',
} as const;

const person = (user: { id: string; email: string; name: string }, role: keyof typeof ROLE_SCOPES): ProjectPrincipal => ({
  ...projectPrincipal([...ROLE_SCOPES[role]]),
  keyId: null,
  keyName: null,
  user,
});

export class ApprovalApiKeys extends FakeApiKeys {
  private readonly people = new Map<string, Principal>([
    [APPROVAL_KEYS.ana, person(PEOPLE.ana, 'deployer')],
    [APPROVAL_KEYS.ben, person(PEOPLE.ben, 'deployer')],
    [APPROVAL_KEYS.viewer, person({ id: randomUUID(), email: 'vic@example.com', name: 'Vic' }, 'viewer')],
    [APPROVAL_KEYS.projectAdmin, person({ id: randomUUID(), email: 'ada@example.com', name: 'Ada' }, 'admin')],
    [APPROVAL_KEYS.readOnly, projectPrincipal(['registry:read'])],
  ]);

  override async resolve(secret: string): Promise<Principal | null> {
    return this.people.get(secret) ?? super.resolve(secret);
  }
}

/** production waits for approval, locked bars keys too, staging is unprotected. */
export function environmentsOf(): Map<string, EnvironmentEntity> {
  const environment = (slug: string, requiresApproval: boolean, barsKeys: boolean) =>
    Object.assign(new EnvironmentEntity(), {
      projectId: PROJECT_ID,
      id: randomUUID(),
      slug,
      createdAt: new Date(0),
      requiresApproval,
      barsKeys,
    });
  return new Map([
    ['production', environment('production', true, false)],
    ['locked', environment('locked', true, true)],
    ['staging', environment('staging', false, false)],
  ]);
}

const PROMPT = { id: randomUUID(), projectId: PROJECT_ID, slug: 'support-reply', kind: 'prompt', lastVersion: 4 } as PromptEntity;

/** DeploymentsService's deploy path: the prompt, its versions 1 to 4, v3 current everywhere; `refuseNext` fails the next write (a gate). */
export class FakeDeployments implements Pick<DeploymentsService, 'recordingRefusals' | 'prepare' | 'write'> {
  readonly written: DeployDto[] = [];
  refuseNext: Error | null = null;

  constructor(private readonly environments: Map<string, EnvironmentEntity>) {}

  recordingRefusals<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  async prepare(_manager: EntityManager, _projectId: string, slug: string, dto: DeployDto): Promise<PreparedDeploy> {
    if (slug !== PROMPT.slug) throw notFound('Prompt not found');
    const environment = this.environments.get(dto.environment);
    const number = dto.version ?? PROMPT.lastVersion;
    if (!environment) throw invalidBody([`environment: no environment "${dto.environment}" in this project`]);
    if (number > PROMPT.lastVersion) throw invalidBody([`version: "${slug}" has no version ${number}`]);
    const version = { id: randomUUID(), version: number } as PromptVersionEntity;
    return { prompt: PROMPT, environment, version, split: null, changes: number !== 3 };
  }

  async write(_manager: EntityManager, prepared: PreparedDeploy): Promise<DeploymentDto> {
    if (this.refuseNext) {
      const err = this.refuseNext;
      this.refuseNext = null;
      throw err;
    }
    this.written.push({ environment: prepared.environment.slug, version: prepared.version.version });
    return {
      id: randomUUID(),
      slug: PROMPT.slug,
      kind: 'prompt',
      environment: prepared.environment.slug,
      version: prepared.version.version,
      versionId: prepared.version.id,
      deploymentVersion: 2,
      deployedAt: new Date().toISOString(),
      replacedAt: null,
      current: true,
      split: null,
      stickyBy: null,
      rules: null,
      guards: null,
    };
  }
}

/** DeploymentRequestsRepository on a Map. */
export class FakeDeploymentRequests {
  readonly rows = new Map<string, DeploymentRequestRow>();

  constructor(private readonly environments: Map<string, EnvironmentEntity>) {}

  async insert(_manager: EntityManager, _projectId: string, row: NewDeploymentRequest): Promise<void> {
    const environment = [...this.environments.values()].find((e) => e.id === row.environmentId)!;
    this.rows.set(row.id, {
      id: row.id,
      status: 'pending',
      action: row.action,
      request: row.request,
      prompt_id: row.promptId,
      environment_id: row.environmentId,
      prompt: PROMPT.slug,
      environment: environment.slug,
      requested_by_kind: row.requester.kind,
      requested_by_user_id: row.requester.userId,
      requested_by_key_id: row.requester.keyId,
      requested_by_name: row.requester.name,
      decided_by_user_id: null,
      decided_by_name: null,
      decided_at: null,
      comment: null,
      deployment_id: null,
      created_at: row.createdAt,
    });
  }

  async find(_projectId: string, id: string): Promise<DeploymentRequestRow | null> {
    return this.rows.get(id) ?? null;
  }

  lock(_manager: EntityManager, projectId: string, id: string): Promise<DeploymentRequestRow | null> {
    return this.find(projectId, id);
  }

  async findPendingSame(_m: EntityManager, _p: string, _prompt: string, environmentId: string, request: object, action = 'deploy') {
    const same = (row: DeploymentRequestRow) =>
      row.status === 'pending' &&
      row.action === action &&
      row.environment_id === environmentId &&
      JSON.stringify(row.request) === JSON.stringify(request);
    return [...this.rows.values()].find(same) ?? null;
  }

  async decide(
    _manager: EntityManager,
    _projectId: string,
    id: string,
    decision: {
      status: DeploymentRequestRow['status'];
      by: { userId: string | null; name: string };
      comment: string | null;
      deploymentId: string | null;
    },
  ): Promise<void> {
    Object.assign(this.rows.get(id)!, {
      status: decision.status,
      decided_by_user_id: decision.by.userId,
      decided_by_name: decision.by.name,
      decided_at: new Date(),
      comment: decision.comment,
      deployment_id: decision.deploymentId,
    });
  }

  async list(): Promise<DeploymentRequestRow[]> {
    return [...this.rows.values()].reverse();
  }
}

/** EnvironmentsRepository's protection queries over the same environments. */
export class FakeEnvironmentRows {
  constructor(private readonly environments: Map<string, EnvironmentEntity>) {}

  async findBySlugForUpdate(_manager: EntityManager, _projectId: string, slug: string): Promise<EnvironmentEntity | null> {
    const found = this.environments.get(slug);
    return found ? Object.assign(new EnvironmentEntity(), found) : null;
  }

  async setProtection(
    _manager: EntityManager,
    _projectId: string,
    id: string,
    requiresApproval: boolean,
    barsKeys: boolean,
  ): Promise<void> {
    const found = [...this.environments.values()].find((e) => e.id === id)!;
    Object.assign(found, { requiresApproval, barsKeys });
  }
}

/** What was audited and enqueued, in order. */
export class Recorded {
  readonly audit: { action: string; resourceType: string }[] = [];
  readonly events: { type: string; data: Record<string, unknown> }[] = [];

  readonly auditLog = {
    record: async (_m: EntityManager, change: { action: string; resourceType: string }) => void this.audit.push(change),
  };
  readonly webhooks = {
    enqueue: async (_m: EntityManager, _projectId: string, type: string, data: Record<string, unknown>) =>
      void this.events.push({ type, data }),
  };
}
