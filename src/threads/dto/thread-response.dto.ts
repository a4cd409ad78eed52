import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { ApiMetadataProperty } from '../../common/swagger/metadata-property';
import { Metadata } from '../../common/validation';
import { RequestLogObjectDto } from './request-log-object.dto';

/** Create Thread: createdAt is a date-time string here (and a Unix timestamp everywhere else). */
export class ThreadCreatedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'uuid' }) projectId: string;
  @ApiMetadataProperty({ required: true }) metadata: Metadata;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deletedAt: string | null;
  @ApiProperty({ type: RequestLogObjectDto, description: 'the createLog given, or {}' }) createLog: RequestLogObjectDto;
}

export class ThreadListItemDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: Number, description: 'Unix seconds', example: 1763800000 }) createdAt: number;
  @ApiProperty({ format: 'uuid' }) projectId: string;
  @ApiProperty({ type: RequestLogObjectDto }) createLog: RequestLogObjectDto;
  @ApiMetadataProperty({ required: true }) metadata: Metadata;
}

export class ThreadDto extends ThreadListItemDto {
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deletedAt: string | null;
}

export class ThreadUpdatedDto extends ThreadListItemDto {}

/** One message of a thread preview: its role and a few words (a Parley addition). */
export class ThreadMessagePreviewDto {
  @ApiProperty({ example: 'user' }) role: string;
  @ApiProperty({
    example: 'Hi! Can I switch my subscription from whole beans to ground coffee?',
    description:
      'its text, whitespace folded, at most 160 characters (`…` when cut); `calls <name>, …` for a message that only calls tools; nothing deleted from it',
  })
  text: string;
}

/** What a thread list shows of a thread with include=preview (docs/decisions.md, "Threads and messages"). */
export class ThreadPreviewDto {
  @ApiProperty({ type: ThreadMessagePreviewDto, nullable: true, description: 'the first message of the first live thread message' })
  first: ThreadMessagePreviewDto | null;
  @ApiProperty({ type: ThreadMessagePreviewDto, nullable: true, description: 'the last message of the last live thread message' })
  last: ThreadMessagePreviewDto | null;
  @ApiProperty({ description: 'live thread messages (turns), counted up to 1000' }) messageCount: number;
  @ApiProperty({ description: 'true when the thread has more than 1000 live thread messages' }) messageCountCapped: boolean;
  @ApiProperty({ description: "calls logged in this thread (its request logs')" }) calls: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0.00042',
    description: 'USD, decimal string: the cost of its calls whose price is known; null when none is',
  })
  costUsd: string | null;
}

/** A thread as the list returns it: the spec's fields, and its preview when asked (`include=preview`). */
export class ThreadListEntryDto extends ThreadListItemDto {
  @ApiPropertyOptional({ type: ThreadPreviewDto, description: 'only with `include=preview` (a Parley addition)' })
  preview?: ThreadPreviewDto;
}

export class ThreadListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ThreadListEntryDto], description: 'newest first' }) data: ThreadListEntryDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

export class ThreadDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['thread.deleted'] }) object: 'thread.deleted';
  @ApiProperty({ enum: [true] }) deleted: true;
}
