import { Column, Entity, PrimaryColumn } from 'typeorm';

import type { AttemptRecord } from './request-log-attempt';
import type { ThreadRange } from './thread-range';

/**
 * One invoke, success or failure. With doNotRecord, variables, request_data, provider_request and
 * provider_response stay null: no prompt, message or reply text is kept here.
 */
@Entity('request_logs')
export class RequestLogEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' }) projectId: string;
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'api_key_id', type: 'uuid', nullable: true }) apiKeyId: string | null;
  @Column({ name: 'thread_id', type: 'uuid', nullable: true }) threadId: string | null;
  @Column({ name: 'prompt_id', type: 'uuid', nullable: true }) promptId: string | null;
  @Column({ name: 'prompt_slug', type: 'varchar' }) promptSlug: string;
  /** `embedding`: a `/v1/embeddings` call (docs/embeddings.md). */
  @Column({ type: 'varchar' }) kind: 'prompt' | 'assistant' | 'embedding';
  @Column({ type: 'varchar' }) environment: string;
  @Column({ name: 'deployment_id', type: 'uuid', nullable: true }) deploymentId: string | null;
  @Column({ name: 'deployment_version', type: 'integer', nullable: true }) deploymentVersion: number | null;
  @Column({ type: 'integer', nullable: true }) version: number | null;
  @Column({ name: 'prompt_history_hash', type: 'varchar', nullable: true }) promptHistoryHash: string | null;
  @Column({ name: 'provider_name', type: 'varchar', nullable: true }) providerName: string | null;
  @Column({ name: 'provider_type', type: 'varchar', nullable: true }) providerType: string | null;
  @Column({ name: 'credential_id', type: 'uuid', nullable: true }) credentialId: string | null;
  @Column({ type: 'varchar', nullable: true }) model: string | null;
  @Column({ type: 'text' }) url: string;
  @Column({ name: 'request_ip', type: 'varchar', nullable: true }) requestIp: string | null;
  /** The call's X-Request-Id (GET /v2/logs?requestId=). */
  @Column({ name: 'request_id', type: 'varchar', nullable: true }) requestId: string | null;
  /** The W3C trace the call belongs to (32 hex digits): the caller's traceparent's, or Parley's own span's (docs/observability.md). */
  @Column({ name: 'trace_id', type: 'varchar', nullable: true }) traceId: string | null;
  @Column({ type: 'boolean' }) stream: boolean;
  @Column({ name: 'do_not_record', type: 'boolean' }) doNotRecord: boolean;
  @Column({ type: 'jsonb' }) metadata: Record<string, string | number>;
  @Column({ type: 'jsonb', nullable: true }) variables: Record<string, string> | null;
  @Column({ type: 'jsonb' }) parameters: Record<string, unknown>;
  @Column({ name: 'request_data', type: 'jsonb', nullable: true }) requestData: Record<string, unknown> | null;
  @Column({ name: 'provider_request', type: 'jsonb', nullable: true }) providerRequest: Record<string, unknown> | null;
  /** An assistant's history, kept in its thread: provider_request is stored without it (thread-range.ts). */
  @Column({ name: 'thread_range', type: 'jsonb', nullable: true }) threadRange: ThreadRange | null;
  @Column({ name: 'provider_response', type: 'jsonb', nullable: true }) providerResponse: Record<string, unknown> | null;
  /** The HTTP status Parley answered with (499: the client went away mid-stream). */
  @Column({ type: 'integer' }) status: number;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ name: 'latency_ms', type: 'integer' }) latencyMs: number;
  @Column({ name: 'ttft_ms', type: 'integer', nullable: true }) ttftMs: number | null;
  @Column({ name: 'prompt_tokens', type: 'integer', nullable: true }) promptTokens: number | null;
  @Column({ name: 'completion_tokens', type: 'integer', nullable: true }) completionTokens: number | null;
  @Column({ name: 'total_tokens', type: 'integer', nullable: true }) totalTokens: number | null;
  /** The tokens by kind (docs/usage.md): prompt = uncached + cache read + cache write; completion = output + reasoning. */
  @Column({ name: 'uncached_input_tokens', type: 'integer', nullable: true }) uncachedInputTokens: number | null;
  @Column({ name: 'cache_read_tokens', type: 'integer', nullable: true }) cacheReadTokens: number | null;
  @Column({ name: 'cache_write_tokens', type: 'integer', nullable: true }) cacheWriteTokens: number | null;
  @Column({ name: 'reasoning_tokens', type: 'integer', nullable: true }) reasoningTokens: number | null;
  @Column({ name: 'output_tokens', type: 'integer', nullable: true }) outputTokens: number | null;
  /** The call ended before the provider reported its final usage (a stream cut or left): the tokens are what was known. */
  @Column({ name: 'usage_partial', type: 'boolean' }) usagePartial: boolean;
  /** Answered from the exact response cache (docs/routing.md, "Response cache"): no provider call, cost 0, the stored answer's tokens. */
  @Column({ name: 'cache_hit', type: 'boolean' }) cacheHit: boolean;
  /**
   * A routed call's attempts, in order, the serving (or last failing) one last (docs/routing.md,
   * "Every attempt recorded"); null for a call without routing, which has exactly one.
   */
  @Column({ type: 'jsonb', nullable: true }) attempts: AttemptRecord[] | null;
  /** USD as a decimal string; null when no price is known for the model (never 0 for "unknown"). */
  @Column({ name: 'cost_usd', type: 'numeric', nullable: true }) costUsd: string | null;
  /** Which price the cost used, e.g. `genai-prices 0.1.8: openai/gpt-4o` or `override: my-vllm/llama-3`. */
  @Column({ name: 'price_ref', type: 'varchar', nullable: true }) priceRef: string | null;
  @Column({ name: 'started_at', type: 'timestamptz' }) startedAt: Date;
}
