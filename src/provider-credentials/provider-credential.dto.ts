import { ApiProperty } from '@nestjs/swagger';
import { IsIn, ValidateBy } from 'class-validator';

import { baseUrlProblem } from '../common/http/redact-url';
import { Optional, Text } from '../common/validation';
import { PROVIDER_NAME_PATTERN } from '../common/validation/slug';
import { API_KEY_ENV_PATTERN, isServerSecret, SERVER_SECRETS_TEXT } from './api-key-env';

/** The fields of a credential other than its name (PUT takes the name from the path). */
export class ProviderCredentialBodyDto {
  @ApiProperty({
    enum: ['openai', 'anthropic'],
    example: 'openai',
    description: '`openai` is any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, OpenRouter…)',
  })
  @IsIn(['openai', 'anthropic'])
  type: 'openai' | 'anthropic';

  @Optional()
  @Text({
    max: 2000,
    example: 'https://api.openai.com/v1',
    description: "OpenAI-compatible: up to and including /v1; defaults to the type's public API",
  })
  @ValidateBy({
    name: 'baseUrl',
    // The same rule as parley.yaml's providers (apply-file.schema.ts).
    validator: {
      validate: (value) => typeof value === 'string' && !baseUrlProblem(value),
      // Not String(value): a JSON object whose toString is not a function cannot be converted (a 500).
      defaultMessage: (args) => `baseUrl ${(typeof args?.value === 'string' && baseUrlProblem(args.value)) || 'must be an http(s) URL'}`,
    },
  })
  baseUrl?: string;

  @Optional()
  @Text({
    min: 1,
    max: 4096,
    writeOnly: true,
    example: 'sk-…',
    description:
      'the API key; stored encrypted (AES-256-GCM, PARLEY_SECRET_KEY) and never returned. Give this or apiKeyEnv, or neither for a keyless endpoint.',
  })
  apiKey?: string;

  @Optional()
  @Text({
    max: 200,
    pattern: API_KEY_ENV_PATTERN,
    patternMessage: 'apiKeyEnv must be an environment variable name (letters, digits, "_")',
    example: 'PARLEY_PROVIDER_OPENAI_KEY',
    description:
      "name of a server environment variable holding the key, read at each call; it must start with the operator's prefix (PROVIDER_API_KEY_ENV_PREFIX, default PARLEY_PROVIDER_)",
  })
  @ValidateBy({
    name: 'isNotServerSecret',
    validator: {
      validate: (value) => typeof value !== 'string' || !isServerSecret(value),
      defaultMessage: () => `apiKeyEnv must not name one of Parley's own secrets (${SERVER_SECRETS_TEXT})`,
    },
  })
  apiKeyEnv?: string;
}

export class CreateProviderCredentialDto extends ProviderCredentialBodyDto {
  @Text({
    max: 64,
    pattern: PROVIDER_NAME_PATTERN,
    patternMessage: 'name must be 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit',
    example: 'openai',
    description: 'what versions name as their provider; "local" is built in',
  })
  name: string;
}

export class ProviderCredentialDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null for the built-in local provider' }) id: string | null;
  @ApiProperty({ example: 'openai' }) name: string;
  @ApiProperty({ enum: ['local', 'openai', 'anthropic'] }) type: 'local' | 'openai' | 'anthropic';
  @ApiProperty({ nullable: true, type: String, example: 'https://api.openai.com/v1' }) baseUrl: string | null;
  @ApiProperty({ enum: ['stored', 'env', 'none'], description: 'where the key comes from; the key itself is never returned' })
  apiKeySource: 'stored' | 'env' | 'none';
  @ApiProperty({ nullable: true, type: String, example: 'PARLEY_PROVIDER_OPENAI_KEY' }) apiKeyEnv: string | null;
  @ApiProperty({ description: 'true for the built-in local provider, which always exists' }) builtIn: boolean;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) createdAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) updatedAt: string | null;
}

export class ProviderCredentialListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ProviderCredentialDto] }) data: ProviderCredentialDto[];
}

export class ProviderCredentialDeletedDto {
  @ApiProperty({ example: 'openai' }) name: string;
  @ApiProperty({ enum: ['provider_credential.deleted'] }) object: 'provider_credential.deleted';
  @ApiProperty({ enum: [true] }) deleted: true;
}

/** POST /v2/provider-credentials/{name}/test: a failing provider is a 200 with `ok: false` and why (docs/providers.md, "Testing a provider"). */
export class ProviderTestResultDto {
  @ApiProperty({ example: 'openai' }) name: string;
  @ApiProperty({ enum: ['provider_credential.test'] }) object: 'provider_credential.test';
  @ApiProperty({ description: 'whether the provider answered the model list with this credential' }) ok: boolean;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 200,
    description: "the provider's HTTP status; null when none came (refused, unreachable, timed out) or nothing was called",
  })
  status: number | null;
  @ApiProperty({ example: 182, description: 'how long the test took, in milliseconds' }) latencyMs: number;
  @ApiProperty({
    example: 'Connected to api.openai.com: 96 models listed.',
    description: "what happened, in a sentence (the provider's own error text, at most 500 characters); never the key",
  })
  message: string;
}
