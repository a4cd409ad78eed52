import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiException, conflict, forbidden, notFound } from '../../common/errors';
import { answeredWith } from '../../common/http/answer-status';
import { isUuid, newId } from '../../common/ids';
import { pageLimit, toPage } from '../../common/pagination';
import { CreateTransaction, plainTransaction } from '../../idempotency/create-transaction';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { DeploymentRequestEvent } from '../../webhooks/webhook.dto';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { EnvironmentEntity } from '../environments/environment.entity';
import { PromptEntity } from '../prompts/prompt.entity';
import { isSlugLike } from '../slugs';
import { isRequester, requestBodyOf, requesterOf, toDeploymentRequestDto } from './deployment-requests.mapper';
import { DeploymentRequestRow, DeploymentRequestsRepository, Requester, UndeployRequestBody } from './deployment-requests.repository';
import { DeploymentsService, PreparedDeploy } from './deployments.service';
import { DeployDto, DeploymentDto } from './dto/deployment.dto';
import {
  DeploymentRequestAction,
  DeploymentRequestDto,
  DeploymentRequestListDto,
  DeploymentRequestsQuery,
} from './dto/deployment-request.dto';
import { UndeployService } from './undeploy.service';

/** The refusals of this feature, as their 403 and 409 bodies say them (docs/security.md, "Approvals"). */
export const APPROVAL_ERRORS = {
  notFound: 'Deployment request not found',
  keysCannotDecide: 'Only a person signed in can approve or reject a deployment request: API keys cannot',
  ownApproval: 'You cannot approve your own deployment request',
  ownRejection: 'You cannot reject your own deployment request: cancel it instead',
  notRequester: 'Only the requester can cancel a deployment request',
  decided: (status: string) => `This deployment request is already ${status}`,
  keysBarred: (environment: string, action: DeploymentRequestAction = 'deploy') =>
    action === 'deploy'
      ? `API keys may not deploy to "${environment}" (a protected environment): a person signed in deploys there, or asks to`
      : `API keys may not undeploy "${environment}" (a protected environment): a person signed in undeploys there, or asks to`,
};

type Decision = 'approve' | 'reject' | 'cancel';
const STATUS_OF = { approve: 'approved', reject: 'rejected', cancel: 'cancelled' } as const;

/**
 * Protected environments (docs/security.md, "Approvals"): a deploy or rollback there becomes a
 * pending deployment request that another person with the deploy scope approves, which runs the
 * deploy as a direct one would (DeploymentsService.prepare and write: the gate, splits, audit) in
 * the transaction that marks it approved. Keys may be barred from such an environment altogether.
 * Every step is audited with the person named and sent to the webhooks that ask for it.
 */
@Injectable()
export class DeploymentRequestsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deployments: DeploymentsService,
    private readonly undeploys: UndeployService,
    private readonly requests: DeploymentRequestsRepository,
    private readonly audit: AuditLog,
    private readonly webhooks: WebhooksService,
    private readonly cache: RegistryCache,
  ) {}

  /**
   * POST /v2/prompts/{slug}/deployments: deploys at once, or, where the environment requires
   * approval, answers 202 with the pending request (a deploy identical to a pending one answers
   * that one). A deploy that changes nothing is answered as before, protected or not.
   */
  async deploy(
    caller: ProjectPrincipal,
    slug: string,
    dto: DeployDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<DeploymentDto | DeploymentRequestDto> {
    const answer = await this.deployments.recordingRefusals(() =>
      tx.run(async (manager) => {
        const prepared = await this.deployments.prepare(manager, caller.projectId, slug, dto);
        const held = await this.holdIfProtected(manager, prepared, requesterOf(caller));
        return held ? answeredWith(202, held.request) : this.deployments.write(manager, prepared);
      }),
    );
    this.cache.invalidateProject(caller.projectId);
    return answer;
  }

  /**
   * What a deploy that `prepare` checked becomes in its environment: null when it goes ahead (an
   * unprotected environment, or nothing would change), else the pending request that holds it
   * (`created` false: an identical one was pending already). A key (or the operator) is refused
   * where keys are barred. In `manager`'s transaction: `parley apply` holds its deploys here too.
   */
  async holdIfProtected(
    manager: EntityManager,
    prepared: PreparedDeploy,
    requester: Requester,
  ): Promise<{ request: DeploymentRequestDto; created: boolean } | null> {
    if (!prepared.changes) return null;
    return this.hold(manager, prepared, requester, 'deploy', requestBodyOf(prepared));
  }

  /**
   * DELETE /v2/prompts/{slug}/deployments/{environment} (docs/registry.md, "Undeploying"): ends the
   * environment's current deployment at once, or, where the environment requires approval, answers
   * 202 with a pending request of action `undeploy` (the same one again while it waits); a key is
   * refused where keys are barred. Taking an environment down is guarded as putting something there.
   */
  async undeploy(
    caller: ProjectPrincipal,
    slug: string,
    environment: string,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<DeploymentDto | DeploymentRequestDto> {
    const answer = await tx.run(async (manager) => {
      const prepared = await this.undeploys.prepare(manager, caller.projectId, slug, environment);
      const held = await this.hold(manager, prepared, requesterOf(caller), 'undeploy', { environment: prepared.environment.slug });
      return held ? answeredWith(202, held.request) : this.undeploys.write(manager, prepared);
    });
    this.cache.invalidateProject(caller.projectId);
    return answer;
  }

  /** The pending request a protected environment holds a change in (null: unprotected, go ahead); a key is refused where keys are barred. */
  private async hold(
    manager: EntityManager,
    { prompt, environment }: { prompt: PromptEntity; environment: EnvironmentEntity },
    requester: Requester,
    action: DeploymentRequestAction,
    body: DeployDto | UndeployRequestBody,
  ): Promise<{ request: DeploymentRequestDto; created: boolean } | null> {
    if (environment.barsKeys && requester.kind !== 'user') throw forbidden(APPROVAL_ERRORS.keysBarred(environment.slug, action));
    if (!environment.requiresApproval) return null;
    const pending = await this.requests.findPendingSame(manager, prompt.projectId, prompt.id, environment.id, body, action);
    if (pending) return { request: toDeploymentRequestDto(pending), created: false };
    const id = newId();
    await this.requests.insert(manager, prompt.projectId, {
      id,
      action,
      promptId: prompt.id,
      environmentId: environment.id,
      request: body,
      requester,
      createdAt: new Date(),
    });
    const request = toDeploymentRequestDto((await this.requests.find(prompt.projectId, id, manager))!);
    await this.announce(manager, prompt.projectId, 'deployment_request.created', request, {
      ...(action === 'undeploy' ? { action } : {}),
      ...body,
      prompt: prompt.slug,
    });
    return { request, created: true };
  }

  /**
   * Approve (runs the deploy), reject, or cancel (the requester's own). Approving and rejecting
   * need a person who did not ask; the request must still be pending. A deploy that fails (its
   * gate refuses, say) rolls everything back: the request stays pending and the error is the answer.
   */
  async decide(
    caller: ProjectPrincipal,
    id: string,
    decision: Decision,
    comment: string | undefined,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<DeploymentRequestDto> {
    const decider = requesterOf(caller);
    if (decision !== 'cancel' && decider.kind !== 'user') throw forbidden(APPROVAL_ERRORS.keysCannotDecide);
    const { projectId } = caller;
    const decided = await this.deployments.recordingRefusals(() =>
      tx.run(async (manager) => {
        const row = isUuid(id) ? await this.requests.lock(manager, projectId, id) : null;
        if (!row) throw notFound(APPROVAL_ERRORS.notFound);
        if (row.status !== 'pending') throw conflict(APPROVAL_ERRORS.decided(row.status));
        this.checkDecider(row, decider, decision);
        const deployment = decision === 'approve' ? await this.deployPending(manager, projectId, row) : null;
        await this.requests.decide(manager, projectId, id, {
          status: STATUS_OF[decision],
          by: decider,
          comment: comment ?? null,
          deploymentId: deployment?.id ?? null,
        });
        const request = toDeploymentRequestDto((await this.requests.find(projectId, id, manager))!);
        const event = `deployment_request.${STATUS_OF[decision]}` as const;
        await this.announce(manager, projectId, event, request, {
          ...(row.action === 'undeploy' ? { action: 'undeploy' } : {}),
          prompt: row.prompt,
          environment: row.environment,
          requestedBy: request.requestedBy.name,
          ...(comment ? { comment } : {}),
          ...(deployment ? { deploymentId: deployment.id, deploymentVersion: deployment.deploymentVersion } : {}),
        });
        return request;
      }),
    );
    if (decision === 'approve') this.cache.invalidateProject(projectId);
    return decided;
  }

  async get(projectId: string, id: string): Promise<DeploymentRequestDto> {
    const row = isUuid(id) ? await this.requests.find(projectId, id) : null;
    if (!row) throw notFound(APPROVAL_ERRORS.notFound);
    return toDeploymentRequestDto(row);
  }

  async list(projectId: string, query: DeploymentRequestsQuery): Promise<DeploymentRequestListDto> {
    const limit = pageLimit(query);
    // A cursor no id can be, or a slug no prompt or environment can have, matches nothing.
    const impossible =
      (query.after !== undefined && !isUuid(query.after)) ||
      [query.prompt, query.environment].some((f) => f !== undefined && !isSlugLike(f));
    if (impossible) return { object: 'list', ...toPage([], limit) };
    const rows = await this.requests.list(projectId, query, limit);
    return { object: 'list', ...toPage(rows.map(toDeploymentRequestDto), limit) };
  }

  private checkDecider(row: DeploymentRequestRow, decider: Requester, decision: Decision): void {
    if (decision === 'cancel') {
      if (!isRequester(row, decider)) throw forbidden(APPROVAL_ERRORS.notRequester);
      return;
    }
    if (row.requested_by_kind === 'user' && row.requested_by_user_id === decider.userId) {
      throw forbidden(decision === 'approve' ? APPROVAL_ERRORS.ownApproval : APPROVAL_ERRORS.ownRejection);
    }
  }

  /**
   * The held deploy, through the path a direct deploy takes; its gate and checks run now, as of now.
   * A held undeploy ends what runs there now (null: nothing by then; an archived prompt's deploy is a 409).
   */
  private async deployPending(manager: EntityManager, projectId: string, row: DeploymentRequestRow): Promise<DeploymentDto | null> {
    const body = typeof row.request === 'string' ? (JSON.parse(row.request) as DeployDto) : (row.request as DeployDto);
    if (row.action === 'undeploy') {
      const prepared = await this.undeploys.prepare(manager, projectId, row.prompt, row.environment).catch((err: unknown) => {
        if (err instanceof ApiException && err.getStatus() === 404) return null;
        throw err;
      });
      return prepared && this.undeploys.write(manager, prepared);
    }
    return this.deployments.write(manager, await this.deployments.prepare(manager, projectId, row.prompt, body));
  }

  /** The step's audit event (naming the person, AuditLog) and its webhook event, in the step's transaction. */
  private async announce(
    manager: EntityManager,
    projectId: string,
    event: DeploymentRequestEvent,
    request: DeploymentRequestDto,
    after: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(manager, {
      projectId,
      action: event,
      resourceType: 'deployment_request',
      resourceId: request.id,
      before: event === 'deployment_request.created' ? null : { status: 'pending' },
      after: { status: request.status, ...after },
    });
    await this.webhooks.enqueue(manager, projectId, event, { ...request });
  }
}
