import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

import { openApiSchemaOf } from '../../../common/swagger/zod-schema';
import { IsSlug, MatchesSchema, Optional, Text } from '../../../common/validation';
import { PROMPT_KINDS, PromptKind } from '../../resolved-deployment';
import { guardsSchema, SplitGuard } from '../guards';
import { SplitArm, SplitRule, splitRulesSchema, splitSchema, StickyBy, stickyBySchema } from '../split';

/** Version numbers are PostgreSQL integers: a larger one would fail the query rather than find nothing. */
const MAX_VERSION = 2_147_483_647;

export class DeployDto {
  @IsSlug('production')
  environment: string;

  @Optional()
  @ApiProperty({
    minimum: 1,
    maximum: MAX_VERSION,
    example: 3,
    description: 'the version number to deploy; defaults to the newest version',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version?: number;

  @Optional()
  @MatchesSchema(splitSchema, {
    description: 'a split of versions with weights instead of one version (docs/experiments.md, "Splits"); the first arm is the control',
    example: [
      { version: 7, weight: 90 },
      { version: 8, weight: 10 },
    ],
  })
  split?: SplitArm[];

  @Optional()
  @MatchesSchema(stickyBySchema, {
    description: 'with a split: what a call sticks to its arm by: "thread" (default), "user", "metadata.<key>" or "none"',
    example: 'thread',
  })
  stickyBy?: StickyBy;

  @Optional()
  @MatchesSchema(splitRulesSchema, {
    description: 'with a split: calls whose `user` and `metadata` match a rule go to its version (first match wins)',
    example: [{ version: 8, metadata: { tier: 'internal' } }],
  })
  rules?: SplitRule[];

  @Optional()
  @MatchesSchema(guardsSchema, {
    description:
      'with a split: bounds that stop a non-control arm (its weight set to 0) once crossed, checked on every instance (docs/experiments.md, "Guards")',
    example: [
      { metric: 'error_rate', maxIncrease: 2, minCalls: 100 },
      { metric: 'feedback', name: 'helpful', min: 0.6, minCount: 30 },
    ],
  })
  guards?: SplitGuard[];
}

export class DeploymentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'summarize' }) slug: string;
  @ApiProperty({ enum: PROMPT_KINDS }) kind: PromptKind;
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: 3 }) version: number;
  @ApiProperty({ format: 'uuid' }) versionId: string;
  @ApiProperty({ example: 2, description: '1 for the first deployment to this environment, +1 for each redeployment' })
  deploymentVersion: number;
  @ApiProperty({ format: 'date-time' }) deployedAt: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when a later deployment replaced this one' }) replacedAt:
    string | null;
  @ApiProperty({ description: 'false for history rows' }) current: boolean;
  @ApiProperty({ ...openApiSchemaOf(splitSchema), nullable: true, description: "the split's arms; null on a plain deployment" })
  split: SplitArm[] | null;
  @ApiProperty({ type: String, nullable: true, example: 'thread' }) stickyBy: StickyBy | null;
  @ApiProperty({ ...openApiSchemaOf(splitRulesSchema), nullable: true }) rules: SplitRule[] | null;
  @ApiProperty({ ...openApiSchemaOf(guardsSchema), nullable: true, description: "the split's guards, defaults filled in; null when none" })
  guards: SplitGuard[] | null;
}

export class DeploymentListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [DeploymentDto] }) data: DeploymentDto[];
}

export class DeploymentsQuery {
  @Optional()
  @Text({ max: 64, example: 'production', description: 'only this environment' })
  environment?: string;

  @Optional()
  @Text({ max: 64, example: 'summarize', description: 'only this prompt or assistant' })
  slug?: string;
}
