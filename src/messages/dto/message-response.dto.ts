import { ApiProperty } from '@nestjs/swagger';

import { chatMessageSchema } from '../../common/chat';
import { ApiMetadataProperty } from '../../common/swagger/metadata-property';
import { openApiSchemaOf } from '../../common/swagger/zod-schema';
import { Metadata } from '../../common/validation';
import { RequestLogSummaryDto } from '../../request-logs/dto/request-log-summary.dto';

const CONTENT_DOC = { type: 'array', items: openApiSchemaOf(chatMessageSchema), description: 'the chat messages of this turn' } as const;

export class MessageListItemDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'uuid' }) threadId: string;
  @ApiProperty(CONTENT_DOC) content: Record<string, unknown>[];
  @ApiProperty({ type: String, nullable: true, description: 'the request log of the invoke that added it' }) requestLogId: string | null;
  @ApiMetadataProperty({ required: true }) metadata: Metadata;
}

/** Create and Get Thread Message; requestLog is present only for messages an invoke added. */
export class MessageDto extends MessageListItemDto {
  @ApiProperty({ type: RequestLogSummaryDto, required: false }) requestLog?: RequestLogSummaryDto;
}

export class MessageUpdatedDto extends MessageListItemDto {
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deletedAt: string | null;
}

export class MessageListDto {
  @ApiProperty({ type: [MessageListItemDto] }) data: MessageListItemDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

export class MessageDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['thread.message.deleted'] }) object: 'thread.message.deleted';
  @ApiProperty({ enum: [true] }) deleted: true;
}
