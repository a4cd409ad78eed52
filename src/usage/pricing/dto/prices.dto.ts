import { ApiProperty } from '@nestjs/swagger';

const RATE = { minimum: 0, maximum: 1_000_000 };

/** One model's price (Swagger; validated by price-overrides.schema.ts) in a project, USD per million tokens (docs/usage.md, "Overriding prices"). */
export class PriceOverrideDto {
  @ApiProperty({ example: 'my-vllm', description: 'provider name as versions refer to it (`local` or a provider credential)' })
  provider: string;

  @ApiProperty({ example: 'llama-3.1-70b', description: 'model name as sent to the provider' })
  model: string;

  @ApiProperty({ ...RATE, example: 0.6, description: 'USD per million uncached input tokens' })
  inputPerMTok: number;

  @ApiProperty({ ...RATE, example: 2.4, description: 'USD per million output (and reasoning) tokens' })
  outputPerMTok: number;

  @ApiProperty({
    ...RATE,
    required: false,
    nullable: true,
    example: 0.3,
    description: 'USD per million prompt tokens read from the cache; absent: the input rate',
  })
  cacheReadPerMTok?: number | null;

  @ApiProperty({
    ...RATE,
    required: false,
    nullable: true,
    example: 0.75,
    description: 'USD per million prompt tokens written to the cache; absent: the input rate',
  })
  cacheWritePerMTok?: number | null;
}

/** The body of PUT .../prices, validated by price-overrides.schema.ts (the same rules as parley.yaml's `prices`). */
export class SetPricesDto {
  @ApiProperty({
    type: [PriceOverrideDto],
    maxItems: 1000,
    description: "the project's price overrides; replaces all of them ([] removes them)",
  })
  prices: PriceOverrideDto[];
}

export class PriceOverrideViewDto {
  @ApiProperty() provider: string;
  @ApiProperty() model: string;
  @ApiProperty({ example: '0.6', description: 'USD per million tokens, decimal string' }) inputPerMTok: string;
  @ApiProperty({ example: '2.4' }) outputPerMTok: string;
  @ApiProperty({ type: String, nullable: true }) cacheReadPerMTok: string | null;
  @ApiProperty({ type: String, nullable: true }) cacheWritePerMTok: string | null;
}

export class PricesDto {
  @ApiProperty({ enum: ['project.prices'] }) object: 'project.prices';
  @ApiProperty({ type: [PriceOverrideViewDto], description: 'by provider and model' }) prices: PriceOverrideViewDto[];
  @ApiProperty({ example: '0.1.8', description: 'version of the @pydantic/genai-prices table used for every other model' })
  priceTable: string;
}
