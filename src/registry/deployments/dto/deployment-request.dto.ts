import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

import { PageQuery } from '../../../common/pagination';
import { Optional, Text } from '../../../common/validation';
import { DeployDto } from './deployment.dto';

/** A deployment request's life (docs/security.md, "Approvals"): pending until approved, rejected or cancelled. */
export const DEPLOYMENT_REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export type DeploymentRequestStatus = (typeof DEPLOYMENT_REQUEST_STATUSES)[number];

/** What approving a request does: deploy what it holds, or undeploy its environment (docs/registry.md, "Undeploying"). */
export const DEPLOYMENT_REQUEST_ACTIONS = ['deploy', 'undeploy'] as const;
export type DeploymentRequestAction = (typeof DEPLOYMENT_REQUEST_ACTIONS)[number];

export const REQUESTER_KINDS = ['user', 'key', 'operator'] as const;
export type RequesterKind = (typeof REQUESTER_KINDS)[number];

export class DeploymentRequestActorDto {
  @ApiProperty({
    enum: REQUESTER_KINDS,
    description:
      '`user`: a person signed in; `key`: an API key (a project key, or the admin key in the project); `operator`: the CLI on the database',
  })
  kind: RequesterKind;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    description: "the person's user id, or the key's id (null: the admin key from the environment, the operator)",
  })
  id: string | null;

  @ApiProperty({ example: 'ana@example.com', description: "the person's e-mail, the key's name, or `cli`" })
  name: string;
}

export class DeploymentRequestDto {
  @ApiProperty({ enum: ['deployment_request'] }) object: 'deployment_request';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: DEPLOYMENT_REQUEST_STATUSES }) status: DeploymentRequestStatus;
  @ApiProperty({
    enum: DEPLOYMENT_REQUEST_ACTIONS,
    description:
      '`deploy`: approving deploys `request`; `undeploy`: approving ends what the environment runs (DELETE /v2/prompts/{slug}/deployments/{environment})',
  })
  action: DeploymentRequestAction;
  @ApiProperty({ example: 'summarize', description: 'the prompt or assistant to deploy or undeploy' }) prompt: string;
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({
    type: DeployDto,
    description:
      "what approving deploys: the deploy's body with the version resolved (a body without `version` asked for the newest then); an undeploy's holds only `environment`",
  })
  request: DeployDto;
  @ApiProperty({ type: DeploymentRequestActorDto }) requestedBy: DeploymentRequestActorDto;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({
    type: DeploymentRequestActorDto,
    nullable: true,
    description: 'who approved or rejected it (a person), or cancelled it (the requester); null while pending',
  })
  decidedBy: DeploymentRequestActorDto | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decidedAt: string | null;
  @ApiProperty({ type: String, nullable: true, description: "the decider's comment" }) comment: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'approved: the deployment it made (or found already current); an undeploy: the deployment it ended (null: nothing was deployed by then)',
  })
  deploymentId: string | null;
}

export class DeploymentRequestListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [DeploymentRequestDto] }) data: DeploymentRequestDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
}

/** GET /v2/deployment-requests: newest first; filters combine with AND. */
export class DeploymentRequestsQuery extends PageQuery {
  @Optional()
  @ApiProperty({ enum: DEPLOYMENT_REQUEST_STATUSES, description: 'only requests in this state, e.g. `pending`' })
  @IsIn(DEPLOYMENT_REQUEST_STATUSES)
  status?: DeploymentRequestStatus;

  @Optional()
  @Text({ max: 64, example: 'summarize', description: 'only requests to deploy this prompt or assistant' })
  prompt?: string;

  @Optional()
  @Text({ max: 64, example: 'production', description: 'only requests for this environment' })
  environment?: string;
}

/** Approve, reject or cancel: an optional comment, kept with the decision. */
export class DecideDeploymentRequestDto {
  @Optional()
  @Text({ max: 2000, example: 'Checked the eval run: ship it.', description: "why; shown with the request and in the webhook's event" })
  comment?: string;
}
