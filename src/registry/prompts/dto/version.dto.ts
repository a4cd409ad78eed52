import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

import { ChatMessage, ChatMessageInput, MODEL_NAME_MAX_LENGTH } from '../../../common/chat';
import { openApiSchemaOf } from '../../../common/swagger/zod-schema';
import { MatchesSchema, Optional, Text } from '../../../common/validation';
import { responseCacheSchema, ResponseCacheSettings, Routing, RoutingInput, routingSchema } from '../../content/routing.schema';
import {
  anyParametersSchema,
  ModelParametersInput,
  PROVIDER_NAME_PATTERN,
  templateSchema,
  toolsSchema,
  variableDefaultsSchema,
} from '../../content/version-content.schema';
import { ModelParameters, PROMPT_KINDS, PromptKind } from '../../resolved-deployment';

const ROUTING_EXAMPLE = {
  strategy: 'priority',
  targets: [
    { provider: 'openai', model: 'gpt-4o-mini' },
    { provider: 'backup', model: 'llama-3.1-70b', parameters: { temperature: 0.3 } },
  ],
  fallbackOn: ['rate_limit', 'server_error', 'timeout', 'connection', 'first_token_timeout'],
  firstTokenTimeoutMs: 5000,
};
const ROUTING_DESCRIPTION =
  "targets that may serve the version, how one is chosen and what falls back (docs/routing.md); with it, provider and model may be left out (they are the first target's)";
const CACHE_DESCRIPTION =
  'the exact response cache: same project, rendered request and parameters within ttlSeconds answer from the cache (docs/routing.md)';

const TEMPLATE_EXAMPLE = [
  { role: 'system', content: 'Summarize the text for {{audience}}. {{#if short}}One sentence.{{/if}}' },
  { role: 'user', content: '{{text}}' },
];

/** A version's content; which fields a kind requires or refuses is checked by prepareVersionContent. */
export class CreateVersionDto {
  @Optional()
  @MatchesSchema(templateSchema, {
    description:
      'chat messages; string contents, text parts and image URLs are Handlebars templates (see docs/templates.md). Required for a prompt or an assistant; an embedding entry has none',
    example: TEMPLATE_EXAMPLE,
  })
  template?: ChatMessageInput[];

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

  @Optional()
  @Text({ max: MODEL_NAME_MAX_LENGTH, example: 'echo', description: 'required unless there is a routing block' })
  model?: string;

  @Optional()
  @MatchesSchema(anyParametersSchema, {
    example: { temperature: 0.2, max_tokens: 200 },
    description: "a prompt's model parameters; an embedding entry's only parameter is `dimensions`",
  })
  parameters?: ModelParametersInput & { dimensions?: number };

  @Optional()
  @MatchesSchema(toolsSchema, { description: 'chat-completion tool definitions' })
  tools?: unknown[];

  @Optional()
  @MatchesSchema(variableDefaultsSchema, { example: { audience: 'engineers' }, description: 'declared variables and their defaults' })
  variables?: Record<string, string>;

  // Above @Optional(): it keeps the block's own `required` list (MatchesSchema).
  @MatchesSchema(routingSchema, { required: false, example: ROUTING_EXAMPLE, description: ROUTING_DESCRIPTION })
  @Optional()
  routing?: RoutingInput;

  @MatchesSchema(responseCacheSchema, { required: false, example: { ttlSeconds: 3600 }, description: CACHE_DESCRIPTION })
  @Optional()
  cache?: ResponseCacheSettings;

  @Optional()
  @Text({ max: 500, example: 'shorter system prompt', description: 'a note on what changed' })
  message?: string;
}

export class VersionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) promptId: string;
  @ApiProperty({ example: 'summarize' }) slug: string;
  @ApiProperty({ enum: PROMPT_KINDS }) kind: PromptKind;
  @ApiProperty({ example: 3 }) version: number;
  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 of the canonical content (promptHistoryHash)',
  })
  contentHash: string;
  @ApiProperty({ ...openApiSchemaOf(templateSchema), example: TEMPLATE_EXAMPLE, description: 'empty for an embedding entry' })
  template: ChatMessage[];
  @ApiProperty({ example: 'local' }) provider: string;
  @ApiProperty({ example: 'echo' }) model: string;
  @ApiProperty({ ...openApiSchemaOf(anyParametersSchema), example: { temperature: 0.2 } }) parameters: ModelParameters;
  @ApiProperty({ ...openApiSchemaOf(toolsSchema) }) tools: unknown[];
  @ApiProperty({ ...openApiSchemaOf(variableDefaultsSchema), example: { audience: 'engineers' } }) variables: Record<string, string>;
  @ApiProperty({ type: [String], example: ['audience', 'short', 'text'], description: 'the variables an invoke may send' })
  declaredVariables: string[];
  // selfRequired: the property is optional, the `required` list is the block's own fields.
  @ApiProperty({
    ...openApiSchemaOf(routingSchema),
    selfRequired: false,
    example: ROUTING_EXAMPLE,
    description: ROUTING_DESCRIPTION,
  } as ApiPropertyOptions)
  routing?: Routing;
  @ApiProperty({ ...openApiSchemaOf(responseCacheSchema), selfRequired: false, description: CACHE_DESCRIPTION } as ApiPropertyOptions)
  cache?: ResponseCacheSettings;
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
