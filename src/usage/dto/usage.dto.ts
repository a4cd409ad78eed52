import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString } from 'class-validator';

export const USAGE_GROUPS = ['prompt', 'version', 'environment', 'model', 'provider', 'key', 'project', 'workspace'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** GET /v2/usage's query (docs/usage.md, "Usage API"). */
export class UsageQuery {
  @ApiProperty({ description: 'start of the range (ISO 8601), inclusive; rounded down to the hour', example: '2026-11-01T00:00:00Z' })
  @IsISO8601({ strict: true })
  from: string;

  @ApiPropertyOptional({ description: 'end of the range (ISO 8601), exclusive; rounded up to the hour; default now' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiPropertyOptional({ enum: ['hour', 'day'], default: 'day', description: 'time bucket (UTC); at most 744 hour or 400 day buckets' })
  @IsOptional()
  @IsIn(['hour', 'day'])
  bucket?: 'hour' | 'day';

  @ApiPropertyOptional({
    description: `comma-separated dimensions to group by: ${USAGE_GROUPS.join(', ')} (project and workspace with the admin key only)`,
    example: 'model,prompt',
  })
  @IsOptional()
  @IsString()
  group_by?: string;

  @ApiPropertyOptional({ description: 'admin key only: the workspace (slug) to report on; default all' })
  @IsOptional()
  @IsString()
  workspace?: string;

  @ApiPropertyOptional({ description: 'admin key only, with workspace: the project (slug) to report on' })
  @IsOptional()
  @IsString()
  project?: string;
}

export class UsageTokensDto {
  @ApiProperty({ description: 'prompt tokens neither read from nor written to a prompt cache' }) uncachedInput: number;
  @ApiProperty({ description: "prompt tokens read from the provider's prompt cache" }) cacheRead: number;
  @ApiProperty({ description: "prompt tokens written to the provider's prompt cache" }) cacheWrite: number;
  @ApiProperty({ description: 'completion tokens spent reasoning' }) reasoning: number;
  @ApiProperty({ description: 'completion tokens of the answers, reasoning excluded' }) output: number;
  @ApiProperty({ description: 'uncachedInput + cacheRead + cacheWrite + reasoning + output' }) total: number;
}

export class UsageLatencyDto {
  @ApiProperty({ type: Number, nullable: true, description: 'median latency in ms, from a histogram (±19 %)' }) p50: number | null;
  @ApiProperty({ type: Number, nullable: true, description: '95th percentile latency in ms, from a histogram (±19 %)' }) p95: number | null;
}

export class UsageMetricsDto {
  @ApiProperty({ description: 'invokes, failed ones included' }) calls: number;
  @ApiProperty({ description: 'invokes answered with a status of 400 or more' }) errors: number;
  @ApiProperty({ description: 'invokes whose usage is partial (a stream cut mid-way)' }) partialCalls: number;
  @ApiProperty({ description: 'invokes with usage but no known price: their cost is not in costUsd (see `unpriced`)' })
  unpricedCalls: number;
  @ApiProperty({ type: UsageTokensDto }) tokens: UsageTokensDto;
  @ApiProperty({ example: '1.234', description: 'USD, exact decimal string: the sum of the priced invokes' }) costUsd: string;
  @ApiProperty({ type: UsageLatencyDto }) latencyMs: UsageLatencyDto;
}

export class UsageRowDto extends UsageMetricsDto {
  @ApiProperty({ format: 'date-time', description: 'bucket start (UTC)' }) start: string;
  @ApiProperty({ format: 'date-time', description: 'bucket end (exclusive)' }) end: string;
  @ApiPropertyOptional({ description: 'group_by=prompt: the prompt or assistant slug; `<provider>/<model>` for a model called directly' })
  prompt?: string;
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'group_by=version' }) version?: number | null;
  @ApiPropertyOptional({ description: 'group_by=environment; empty for a model called directly' }) environment?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'group_by=model' }) model?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'group_by=provider' }) provider?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, format: 'uuid', description: 'group_by=key: the project API key id' }) keyId?:
    string | null;
  @ApiPropertyOptional({ description: 'group_by=workspace (admin key): workspace slug' }) workspace?: string;
  @ApiPropertyOptional({ description: 'group_by=project (admin key): project slug, with its workspace' }) project?: string;
}

export class UnpricedModelDto {
  @ApiProperty({ type: String, nullable: true }) provider: string | null;
  @ApiProperty({ type: String, nullable: true }) model: string | null;
  @ApiProperty({ description: 'invokes of this model with usage but no price' }) calls: number;
}

export class WorkspaceUsageDto extends UsageMetricsDto {
  @ApiProperty() workspace: string;
}

export class UsageReportDto {
  @ApiProperty({ enum: ['usage.report'] }) object: 'usage.report';
  @ApiProperty({ format: 'date-time' }) from: string;
  @ApiProperty({ format: 'date-time' }) to: string;
  @ApiProperty({ enum: ['hour', 'day'] }) bucket: 'hour' | 'day';
  @ApiProperty({ enum: USAGE_GROUPS, isArray: true }) groupBy: UsageGroup[];
  @ApiProperty({ type: [UsageRowDto], description: 'one row per bucket and group that had calls, by bucket then group' })
  data: UsageRowDto[];
  @ApiProperty({ type: UsageMetricsDto, description: 'the whole range' }) totals: UsageMetricsDto;
  @ApiProperty({
    type: [UnpricedModelDto],
    description: 'models called in the range whose cost is unknown (no price table entry, no override)',
  })
  unpriced: UnpricedModelDto[];
  @ApiPropertyOptional({ type: [WorkspaceUsageDto], description: 'admin key only: totals per workspace over the range' })
  workspaces?: WorkspaceUsageDto[];
}
