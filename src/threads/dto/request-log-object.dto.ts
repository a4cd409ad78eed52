import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsISO8601, IsOptional, IsString } from 'class-validator';

const STRING_FIELDS = [
  'id', 'url', 'metadata', 'promptId', 'threadId', 'projectId', 'requestIP', 'variables', 'parameters', 'promptSlug',
  'environment', 'providerKeyId', 'projectSlug', 'requestData', 'deploymentId', 'organizationId', 'projectAPIKeyId',
  'organizationSlug', 'deploymentVersion', 'promptHistoryHash', 'providerOrganization',
] as const;
const BOOLEAN_FIELDS = ['stream', 'assistant', 'doNotRecord'] as const;

/**
 * The spec's request-log object, as accepted in Create Thread's `createLog` and returned as a
 * thread's `createLog`. Every field is optional on input; object-valued fields (metadata,
 * variables, parameters, requestData) travel as JSON-encoded strings.
 */
export class RequestLogObjectDto {
  [key: string]: string | boolean | null | undefined;
}

for (const field of STRING_FIELDS) {
  ApiProperty({ type: String, required: false, nullable: true })(RequestLogObjectDto.prototype, field);
  IsOptional()(RequestLogObjectDto.prototype, field);
  IsString()(RequestLogObjectDto.prototype, field);
}
for (const field of BOOLEAN_FIELDS) {
  ApiProperty({ type: Boolean, required: false, nullable: true })(RequestLogObjectDto.prototype, field);
  IsOptional()(RequestLogObjectDto.prototype, field);
  IsBoolean()(RequestLogObjectDto.prototype, field);
}
ApiProperty({ type: String, format: 'date-time', required: false, nullable: true })(RequestLogObjectDto.prototype, 'startedAt');
IsOptional()(RequestLogObjectDto.prototype, 'startedAt');
IsISO8601({ strict: true })(RequestLogObjectDto.prototype, 'startedAt');

export const REQUEST_LOG_FIELDS = [...STRING_FIELDS, ...BOOLEAN_FIELDS, 'startedAt'] as const;
export type RequestLogField = (typeof REQUEST_LOG_FIELDS)[number];
