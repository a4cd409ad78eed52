import { ApiProperty } from '@nestjs/swagger';
import { ArrayMinSize, IsArray, IsIn, IsUrl } from 'class-validator';

import { Optional, Text } from '../common/validation';

/** Background responses' final statuses: what a webhook created without `events` receives. */
export const RESPONSE_EVENTS = ['response.completed', 'response.failed', 'response.cancelled', 'response.incomplete'] as const;

/** A split's guard stopped an arm (docs/experiments.md, "Guards"): sent only to webhooks that name it. */
export const GUARD_TRIPPED_EVENT = 'deployment.guard_tripped';

/**
 * A deployment request to a protected environment was made, approved, rejected or cancelled
 * (docs/security.md, "Approvals"); `data` is the request. Sent only to webhooks that name them.
 */
export const DEPLOYMENT_REQUEST_EVENTS = [
  'deployment_request.created',
  'deployment_request.approved',
  'deployment_request.rejected',
  'deployment_request.cancelled',
] as const;
export type DeploymentRequestEvent = (typeof DEPLOYMENT_REQUEST_EVENTS)[number];

/** Every event a webhook can subscribe to. */
export const WEBHOOK_EVENTS = [...RESPONSE_EVENTS, GUARD_TRIPPED_EVENT, ...DEPLOYMENT_REQUEST_EVENTS] as const;

export class CreateWebhookDto {
  @Text({
    max: 2000,
    example: 'https://example.com/parley-hooks',
    description: 'where the events are POSTed; subject to the outbound policy (PROVIDER_ALLOWED_HOSTS)',
  })
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { message: 'url must be an http(s) URL' })
  url: string;

  @Optional()
  @ApiProperty({
    required: false,
    isArray: true,
    enum: WEBHOOK_EVENTS,
    description: `the events to send (default: the four response events; ${GUARD_TRIPPED_EVENT} and the deployment_request.* events only when named)`,
  })
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(WEBHOOK_EVENTS, { each: true })
  events?: string[];
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['webhook'] })
  object: 'webhook';

  @ApiProperty()
  url: string;

  @ApiProperty({ isArray: true, enum: WEBHOOK_EVENTS })
  events: string[];

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class WebhookCreatedDto extends WebhookDto {
  @ApiProperty({ example: 'whsec_…', description: 'the Standard Webhooks signing secret: shown once, here; stored encrypted' })
  secret: string;
}

export class WebhookListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ type: [WebhookDto] })
  data: WebhookDto[];
}

export class WebhookDeletedDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['webhook'] })
  object: 'webhook';

  @ApiProperty({ enum: [true] })
  deleted: true;
}
