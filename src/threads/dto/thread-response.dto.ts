import { ApiProperty } from '@nestjs/swagger';

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

export class ThreadListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ThreadListItemDto], description: 'newest first' }) data: ThreadListItemDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

export class ThreadDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['thread.deleted'] }) object: 'thread.deleted';
  @ApiProperty({ enum: [true] }) deleted: true;
}
