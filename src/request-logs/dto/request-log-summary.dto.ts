import { ApiProperty } from '@nestjs/swagger';

/** The log of the invoke that added a message, as Create and Get Thread Message show it. */
export class RequestLogSummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the body sent to the provider ({} when doNotRecord)' })
  request: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: "the provider's answer ({} when doNotRecord)" })
  response: Record<string, unknown>;
}
