import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Matches } from 'class-validator';

import { PageQuery } from '../../common/pagination';
import { IsSlug, managementBodyDto, Optional, Text } from '../../common/validation';
import { addItemsSchema, importItemsSchema, itemFromSourceSchema, itemPatchSchema } from './dataset-item.schema';

export class CreateDatasetDto {
  @IsSlug('support-questions')
  name: string;

  @Optional()
  @Text({ max: 2000, description: 'what the dataset is for' })
  description?: string;
}

export class AddItemsBodyDto extends managementBodyDto(addItemsSchema) {}
export class ImportItemsBodyDto extends managementBodyDto(importItemsSchema) {}
export class ItemFromSourceBodyDto extends managementBodyDto(itemFromSourceSchema) {}
export class ItemPatchBodyDto extends managementBodyDto(itemPatchSchema) {}

export class DatasetItemsQuery extends PageQuery {
  @Optional()
  @ApiPropertyOptional({ type: Number, description: 'the dataset version to read (default: the current one)' })
  @Matches(/^(0|[1-9][0-9]{0,8})$/, { message: 'version must be a whole number' })
  version?: string;
}

export class DatasetDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['dataset'] }) object: 'dataset';
  @ApiProperty({ example: 'support-questions' }) name: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: 'the current version: every change to the items makes a new one' }) version: number;
  @ApiProperty({ description: 'items in the current version' }) itemCount: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class DatasetListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [DatasetDto] }) data: DatasetDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'the last name listed: pass it as `after`' }) last_id: string | null;
}

export class DatasetItemDto {
  @ApiProperty({ format: 'uuid', description: 'stable across edits' }) id: string;
  @ApiProperty({ enum: ['dataset.item'] }) object: 'dataset.item';
  @ApiProperty({ description: 'the dataset version this revision of the item appeared in' }) sinceVersion: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) variables: Record<string, string>;
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'chat messages sent after the template' }) messages: unknown[];
  @ApiProperty({ nullable: true, description: 'the expected output: text or any JSON; null when none' }) expected: unknown;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, string | number>;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: 'the log or thread turn it was added from' })
  source: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class DatasetItemListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ description: 'the dataset version listed' }) version: number;
  @ApiProperty({ type: [DatasetItemDto] }) data: DatasetItemDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

export class DatasetChangeDto {
  @ApiProperty({ description: 'the dataset version the change made' }) version: number;
  @ApiProperty({ description: 'items in that version' }) itemCount: number;
  @ApiProperty({ type: [String], description: 'ids of the items added or changed' }) itemIds: string[];
}

export class DatasetVersionDto {
  @ApiProperty() version: number;
  @ApiProperty() itemCount: number;
  @ApiProperty({ example: 'added 200 items' }) change: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class DatasetVersionListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [DatasetVersionDto], description: 'newest first, at most 100' }) data: DatasetVersionDto[];
}

export class DatasetDeletedDto {
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['dataset'] }) object: 'dataset';
  @ApiProperty({ enum: [true] }) deleted: true;
}
