import { ApiProperty } from '@nestjs/swagger';
import { ApiMetadataProperty } from '../../common/swagger/metadata-property';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { IsMetadata, Metadata } from '../../common/validation';
import { RequestLogObjectDto } from './request-log-object.dto';

export class CreateThreadDto {
  @ApiMetadataProperty({ required: false })
  @IsOptional()
  @IsMetadata()
  metadata?: Metadata;

  @ApiProperty({ type: RequestLogObjectDto, required: false, description: 'an initial log for the thread, returned as its createLog' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RequestLogObjectDto)
  createLog?: RequestLogObjectDto;
}

export class UpdateThreadDto {
  @ApiMetadataProperty({ required: true, replaces: true })
  @IsMetadata()
  metadata: Metadata;
}
