import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

import { PageQuery } from '../../../common/pagination';
import { IsSlug, Optional } from '../../../common/validation';
import { PROMPT_KINDS, PromptKind } from '../../resolved-deployment';

export class CreatePromptDto {
  @IsSlug('summarize')
  slug: string;

  @Optional()
  @ApiProperty({
    enum: PROMPT_KINDS,
    default: 'prompt',
    description: 'assistants keep threads; prompts do not; an embedding entry is a provider, a model and dimensions (POST /v1/embeddings)',
  })
  @IsIn(PROMPT_KINDS)
  kind?: PromptKind;
}

/** Where a prompt is deployed now. */
export class PromptDeploymentDto {
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: 3 }) version: number;
  @ApiProperty({ example: 2, description: 'how many times this environment was (re)deployed' }) deploymentVersion: number;
  @ApiProperty({ format: 'date-time' }) deployedAt: string;
}

export class PromptDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'summarize' }) slug: string;
  @ApiProperty({ enum: PROMPT_KINDS }) kind: PromptKind;
  @ApiProperty({ type: Number, nullable: true, example: 3, description: 'null until the first version is created' }) latestVersion:
    number | null;
  @ApiProperty({ type: [PromptDeploymentDto] }) deployments: PromptDeploymentDto[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when it was archived (POST /v2/prompts/{slug}/archive): neither invoked nor deployed until restored; null while live',
  })
  archivedAt: string | null;
}

export class PromptListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [PromptDto] }) data: PromptDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

/** GET /v2/prompts: live ones by default; `archived=true` lists the archived ones instead. */
export class PromptsQuery extends PageQuery {
  @Optional()
  @ApiProperty({
    enum: ['true', 'false'],
    default: 'false',
    description:
      'true: only the archived prompts and assistants (POST /v2/prompts/{slug}/restore brings one back); false: only the live ones',
  })
  @IsIn(['true', 'false'])
  archived?: 'true' | 'false';
}
