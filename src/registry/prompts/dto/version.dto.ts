import { ApiProperty } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';

import { ChatMessage, ChatMessageInput, MODEL_NAME_MAX_LENGTH } from '../../../common/chat';
import { openApiSchemaOf } from '../../../common/swagger/zod-schema';
import { MatchesSchema, Optional, Text } from '../../../common/validation';
import {
  ModelParametersInput,
  modelParametersSchema,
  PROVIDER_NAME_PATTERN,
  templateSchema,
  toolsSchema,
  variableDefaultsSchema,
} from '../../content/version-content.schema';
import { ModelParameters, PromptKind } from '../../resolved-deployment';

const TEMPLATE_EXAMPLE = [
  { role: 'system', content: 'Summarize the text for {{audience}}. {{#if short}}One sentence.{{/if}}' },
  { role: 'user', content: '{{text}}' },
];

export class CreateVersionDto {
  @IsDefined()
  @MatchesSchema(templateSchema, {
    description: 'chat messages; string contents, text parts and image URLs are Handlebars templates (see docs/templates.md)',
    example: TEMPLATE_EXAMPLE,
  })
  template: ChatMessageInput[];

  @Optional()
  @Text({
    max: 64,
    pattern: PROVIDER_NAME_PATTERN,
    patternMessage: 'provider must be "local" or the name of a provider credential',
    default: 'local',
    example: 'local',
    description: '"local" or the name of a provider credential',
  })
  provider?: string;

  @Text({ max: MODEL_NAME_MAX_LENGTH, example: 'echo' })
  model: string;

  @Optional()
  @MatchesSchema(modelParametersSchema, { example: { temperature: 0.2, max_tokens: 200 } })
  parameters?: ModelParametersInput;

  @Optional()
  @MatchesSchema(toolsSchema, { description: 'chat-completion tool definitions' })
  tools?: unknown[];

  @Optional()
  @MatchesSchema(variableDefaultsSchema, { example: { audience: 'engineers' }, description: 'declared variables and their defaults' })
  variables?: Record<string, string>;

  @Optional()
  @Text({ max: 500, example: 'shorter system prompt', description: 'a note on what changed' })
  message?: string;
}

export class VersionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) promptId: string;
  @ApiProperty({ example: 'summarize' }) slug: string;
  @ApiProperty({ enum: ['prompt', 'assistant'] }) kind: PromptKind;
  @ApiProperty({ example: 3 }) version: number;
  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 of the canonical content (promptHistoryHash)',
  })
  contentHash: string;
  @ApiProperty({ ...openApiSchemaOf(templateSchema), example: TEMPLATE_EXAMPLE }) template: ChatMessage[];
  @ApiProperty({ example: 'local' }) provider: string;
  @ApiProperty({ example: 'echo' }) model: string;
  @ApiProperty({ ...openApiSchemaOf(modelParametersSchema), example: { temperature: 0.2 } }) parameters: ModelParameters;
  @ApiProperty({ ...openApiSchemaOf(toolsSchema) }) tools: unknown[];
  @ApiProperty({ ...openApiSchemaOf(variableDefaultsSchema), example: { audience: 'engineers' } }) variables: Record<string, string>;
  @ApiProperty({ type: [String], example: ['audience', 'short', 'text'], description: 'the variables an invoke may send' })
  declaredVariables: string[];
  @ApiProperty({ type: String, nullable: true }) message: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class VersionListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [VersionDto], description: 'newest first' }) data: VersionDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}
