import { ApiMetadataProperty } from '../../common/swagger/metadata-property';
import { InputErrors, IsMetadata, Metadata, Nested, Optional } from '../../common/validation';
import { RequestLogObjectDto } from './request-log-object.dto';

export class CreateThreadDto {
  // null is documented as "no metadata" (docs/decisions.md "Hostile input").
  @Optional({ nullable: true })
  @ApiMetadataProperty({ required: false })
  @IsMetadata()
  metadata?: Metadata;

  @Optional()
  @Nested(() => RequestLogObjectDto, { description: 'an initial log for the thread, returned as its createLog' })
  createLog?: RequestLogObjectDto;
}

@InputErrors({ requiredObject: { field: 'metadata', message: 'Metadata is required' } })
export class UpdateThreadDto {
  @ApiMetadataProperty({ required: true, replaces: true })
  @IsMetadata()
  metadata: Metadata;
}
