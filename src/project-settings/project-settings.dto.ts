import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

import { openApiSchemaOf } from '../common/swagger/zod-schema';
import { MatchesSchema, Optional } from '../common/validation';
import { LiveGrader, liveGradersSchema } from './live-graders';

const LIVE_GRADERS =
  'graders that score a share of the deployed calls, written as feedback on their logs (docs/experiments.md, "Live graders"): ' +
  'each names a grader, the share of calls (above 0, at most 1) and optionally the prompt and environment whose calls it scores';

export class ProjectSettingsDto {
  @ApiProperty({ enum: ['project.settings'] }) object: 'project.settings';
  @ApiProperty({ description: 'false: embedding calls keep no input text in their request logs (default true)' })
  recordEmbeddingInputs: boolean;
  @ApiProperty({ ...openApiSchemaOf(liveGradersSchema), description: `${LIVE_GRADERS} (default none)` })
  liveGraders: LiveGrader[];
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'null: never changed (the defaults)' })
  updatedAt: string | null;
}

/** The settings to change; a field left out keeps its value. */
export class PatchProjectSettingsDto {
  @Optional()
  @IsBoolean()
  @ApiProperty({ required: false, example: false })
  recordEmbeddingInputs?: boolean;

  @Optional()
  @MatchesSchema(liveGradersSchema, {
    description: `${LIVE_GRADERS}; the list replaces the stored one ([] removes them all)`,
    example: [{ grader: 'valid-json', share: 0.1, prompt: 'support-reply', environment: 'production' }],
  })
  liveGraders?: LiveGrader[];
}
