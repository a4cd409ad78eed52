import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

import { Optional } from '../common/validation';

export class ProjectSettingsDto {
  @ApiProperty({ enum: ['project.settings'] }) object: 'project.settings';
  @ApiProperty({ description: 'false: embedding calls keep no input text in their request logs (default true)' })
  recordEmbeddingInputs: boolean;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'null: never changed (the defaults)' })
  updatedAt: string | null;
}

/** The settings to change; a field left out keeps its value. */
export class PatchProjectSettingsDto {
  @Optional()
  @IsBoolean()
  @ApiProperty({ required: false, example: false })
  recordEmbeddingInputs?: boolean;
}
