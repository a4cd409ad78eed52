import { Injectable, Logger } from '@nestjs/common';

import { credentialOf, ProjectPrincipal } from '../auth/principal';
import { ApiException, serviceError } from '../common/errors';
import type { WireLogFields } from '../common/http/wire-request';
import { newId } from '../common/ids';
import { IdempotencyService } from '../idempotency/idempotency.service';
import type { StoredOutcome } from '../idempotency/idempotency.types';
import { Admission, LimitsService } from '../limits/limits.service';
import { EmbeddingRequest, EmbeddingResult, ProviderError, ProvidersService, TokenCounts } from '../providers';
import { PreparedInvocation, ResolvedTarget } from './invocation.types';
import { admitOrLog } from './invocation-admission';
import { InvocationRecorder, InvokeOutcome } from './invocation-recorder';
import { INVOKE_IDEMPOTENCY_ERRORS } from './invocation-replay';
import { attemptTraceOf, callTraceOf, errorTypeOf } from './invocation-telemetry';
import { providerFailure } from './invoke-errors';

/** One `/v1/embeddings` call as the core takes it (docs/embeddings.md): no HTTP, no wire format. */
export interface EmbeddingInput {
  /** Resolved by InvocationService.resolve; logged with `kind: 'embedding'`. */
  target: ResolvedTarget;
  request: EmbeddingRequest;
  /** No input text in the log (the header, or EMBEDDINGS_RECORD_INPUTS=false). */
  doNotRecord: boolean;
  metadata: Record<string, string | number>;
  idempotencyKey?: string;
  /** The request's parameters as the log's `parameters` records them (no text). */
  parameters: Record<string, unknown>;
  log: { requestData: Record<string, unknown> } & WireLogFields;
}

export interface EmbeddingOutcome {
  vectors: number[][];
  model: string;
  promptTokens: number;
  /** The call's request log (x-parley-log-id); absent on a replay. */
  logId?: string;
  /** Rate-limit headers; `Idempotent-Replayed` on a replay. */
  headers: Record<string, string>;
}

/** What an Idempotency-Key keeps of a successful call: the vectors as base64 of little-endian float32 (compact). */
interface StoredEmbeddings {
  embeddings: { model: string; promptTokens: number; vectors: string[] };
}

const REPLAYED = { 'Idempotent-Replayed': 'true' };

export const float32Base64 = (vector: number[]): string => Buffer.from(new Float32Array(vector).buffer).toString('base64');

export function fromFloat32Base64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const floats = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < floats.length; i += 1) floats[i] = bytes.readFloatLE(i * 4);
  return Array.from(floats);
}

/**
 * Embeddings on the invocation core: the Idempotency-Key, the caller's limits and budgets, the
 * provider call (retries, timeouts and outbound policy are the provider layer's), and one request
 * log with tokens and cost through the same recorder as chat. The log keeps the request as sent
 * (unless doNotRecord) and a summary of the answer, never the vectors.
 */
@Injectable()
export class EmbeddingInvocation {
  private readonly logger = new Logger('Invocation');

  constructor(
    private readonly providers: ProvidersService,
    private readonly recorder: InvocationRecorder,
    private readonly limits: LimitsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  async run(caller: ProjectPrincipal, input: EmbeddingInput, signal?: AbortSignal): Promise<EmbeddingOutcome> {
    const key = input.idempotencyKey;
    if (key) {
      const hash = this.idempotency.hashOf(input.log.url, input.log.requestData, credentialOf(caller));
      const claim = await this.idempotency.claim(caller.projectId, key, hash, INVOKE_IDEMPOTENCY_ERRORS);
      if (claim.type === 'replay') return replayed(claim.outcome);
    }
    try {
      const outcome = await this.runClaimed(caller, input, signal);
      if (key) {
        const stored: StoredEmbeddings = {
          embeddings: { model: outcome.model, promptTokens: outcome.promptTokens, vectors: outcome.vectors.map(float32Base64) },
        };
        await this.idempotency.complete(caller.projectId, key, { kind: 'response', status: 200, body: stored });
      }
      return outcome;
    } catch (err) {
      if (key) await this.idempotency.settleFailure(caller.projectId, key, err);
      throw err;
    }
  }

  private async runClaimed(caller: ProjectPrincipal, input: EmbeddingInput, signal?: AbortSignal): Promise<EmbeddingOutcome> {
    const prepared = preparedOf(input);
    const startedAt = new Date();
    prepared.trace = callTraceOf(caller, prepared, 'embeddings');
    const admission = await this.admit(caller, prepared, startedAt, signal);
    const { type, baseUrl, apiKey } = input.target.provider;
    const attempt = attemptTraceOf(prepared, input.target.provider, prepared.request, 1);
    let result: EmbeddingResult;
    try {
      result = await this.providers.embed(input.request, { type, baseUrl, apiKey }, { signal });
    } catch (err) {
      attempt.failed(errorTypeOf(err));
      admission.release();
      throw await this.failed(caller, prepared, err, startedAt);
    }
    const tokens: TokenCounts = { input: result.promptTokens, cacheRead: 0, cacheWrite: 0, reasoning: 0, output: 0 };
    if (prepared.trace) attempt.succeeded({ tokens, responseModel: result.model });
    const outcome: InvokeOutcome = {
      status: 200,
      error: null,
      providerRequest: result.providerRequest,
      // A summary: the vectors are never stored in a log.
      providerResponse: {
        object: 'list',
        model: result.model,
        count: result.vectors.length,
        dimensions: result.vectors[0]?.length ?? 0,
        usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
      },
      tokens,
      startedAt,
      ttftMs: null,
    };
    try {
      await this.recorder.recordSuccess(caller, prepared, outcome);
    } finally {
      admission.release(result.promptTokens);
    }
    return {
      vectors: result.vectors,
      model: result.model,
      promptTokens: result.promptTokens,
      logId: prepared.logId,
      headers: admission.headers ?? {},
    };
  }

  private admit(caller: ProjectPrincipal, prepared: PreparedInvocation, startedAt: Date, signal?: AbortSignal): Promise<Admission> {
    return admitOrLog(this.limits, this.recorder, caller, prepared, startedAt, signal);
  }

  private async failed(caller: ProjectPrincipal, prepared: PreparedInvocation, err: unknown, startedAt: Date): Promise<ApiException> {
    if (!(err instanceof ProviderError))
      this.logger.error(`embedding call failed unexpectedly: ${err instanceof Error ? err.stack : String(err)}`);
    const failure = err instanceof ProviderError ? providerFailure(err) : serviceError(502, 'Bad Gateway', 'The provider call failed');
    const message = (failure.body as { message: string }).message;
    const error = prepared.input.doNotRecord && err instanceof ProviderError ? err.recordableMessage : message;
    await this.recorder.recordFailure(caller, prepared, { status: failure.getStatus(), error, startedAt, ttftMs: null });
    return failure;
  }
}

/** The recorder's view of an embedding call: no messages, template, thread or variables. */
function preparedOf(input: EmbeddingInput): PreparedInvocation {
  return {
    input: {
      target: input.target,
      messages: [],
      variables: {},
      overrides: {},
      thread: null,
      stream: false,
      doNotRecord: input.doNotRecord,
      metadata: input.metadata,
      log: input.log,
    },
    logId: newId(),
    threadId: null,
    newThread: false,
    variables: {},
    parameters: input.parameters,
    request: { model: input.request.model, messages: [] },
  };
}

function replayed(outcome: StoredOutcome): EmbeddingOutcome {
  if (outcome.kind === 'error') throw new ApiException(outcome.status, outcome.body, { ...outcome.headers, ...REPLAYED });
  const stored = outcome.kind === 'response' ? (outcome.body as Partial<StoredEmbeddings> | null)?.embeddings : undefined;
  if (!stored) throw INVOKE_IDEMPOTENCY_ERRORS.mismatch();
  return { vectors: stored.vectors.map(fromFloat32Base64), model: stored.model, promptTokens: stored.promptTokens, headers: REPLAYED };
}
