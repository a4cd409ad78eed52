import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsISO8601, IsString } from 'class-validator';

import { Optional } from '../../common/validation';

// Response fields are null when unknown, so null is a documented input value here (and only here).
const Text = () => applyDecorators(Optional({ nullable: true }), ApiProperty({ type: String }), IsString());
const Flag = () => applyDecorators(Optional({ nullable: true }), ApiProperty({ type: Boolean }), IsBoolean());

/**
 * The spec's request-log object: a thread's `createLog` (as accepted by Create Thread and as
 * returned), and the core of GET /v2/logs. Every field is optional on input; object-valued
 * fields (metadata, variables, parameters, requestData) travel as JSON-encoded strings. The values
 * are stored in a jsonb column, so the body limit (BODY_LIMIT) is their only bound.
 */
export class RequestLogObjectDto {
  @Text() id?: string | null;
  @Text() url?: string | null;
  @Text() metadata?: string | null;
  @Text() promptId?: string | null;
  @Text() threadId?: string | null;
  @Text() projectId?: string | null;
  @Text() requestIP?: string | null;
  @Text() variables?: string | null;
  @Text() parameters?: string | null;
  @Text() promptSlug?: string | null;
  @Text() environment?: string | null;
  @Text() providerKeyId?: string | null;
  @Text() projectSlug?: string | null;
  @Text() requestData?: string | null;
  @Text() deploymentId?: string | null;
  @Text() organizationId?: string | null;
  @Text() projectAPIKeyId?: string | null;
  @Text() organizationSlug?: string | null;
  @Text() deploymentVersion?: string | null;
  @Text() promptHistoryHash?: string | null;
  @Text() providerOrganization?: string | null;
  @Flag() stream?: boolean | null;
  @Flag() assistant?: boolean | null;
  @Flag() doNotRecord?: boolean | null;

  @Optional({ nullable: true })
  @ApiProperty({ type: String, format: 'date-time' })
  @IsISO8601({ strict: true })
  startedAt?: string | null;
}
