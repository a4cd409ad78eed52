import { randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import type { Admission } from '../limits/limits.service';
import type { ChatCompletion, ChatCompletionChunk, TokenCounts } from '../providers';
import { CachedAnswer, ResponseCache } from '../response-cache/response-cache.service';
import { CACHE_RESULT_HEADER } from '../response-cache/response-cache-headers';
import { responseCacheKey } from '../response-cache/response-cache-key';
import { CompletionResult, PreparedInvocation, StreamResult } from './invocation.types';
import { InvocationRecorder } from './invocation-recorder';
import { chunksOf } from './invocation-replay';
import { storeFailure } from './invoke-errors';

/** The cache applies to this call and had nothing for it: the key and TTL to store the answer under. */
export interface CacheMiss {
  hit?: undefined;
  projectId: string;
  key: string;
  ttlSeconds: number;
  headers: Record<string, string>;
}

/** A stored answer serves this call: the result to answer with, its log already written (or written by `finish()`). */
export interface CacheHit {
  hit: CompletionResult | StreamResult;
}

/**
 * The exact response cache in the invocation core (docs/routing.md, "Response cache"): looked up
 * after admission and before the provider call, only for a call a cache applies to (the version's
 * `cache` or the call's `x-parley-cache-ttl`, never with doNotRecord), so no other call pays its
 * query; a recorded success is stored after.
 */
@Injectable()
export class InvocationCache {
  private readonly logger = new Logger('ResponseCache');

  constructor(
    private readonly cache: ResponseCache,
    private readonly recorder: InvocationRecorder,
  ) {}

  /** The TTL that applies: the call's header (0: none), else the version's; none with doNotRecord. */
  ttlOf(prepared: PreparedInvocation): number | null {
    const { input } = prepared;
    if (input.doNotRecord) return null;
    const ttl = input.cacheTtlSeconds ?? input.target.deployment?.responseCache?.ttlSeconds ?? 0;
    return ttl > 0 ? ttl : null;
  }

  /** null: no cache applies. A hit is answered (and logged as a hit, cost 0) without calling the provider. */
  async lookup(
    caller: ProjectPrincipal,
    prepared: PreparedInvocation,
    admission: Admission,
    startedAt: Date,
  ): Promise<CacheHit | CacheMiss | null> {
    const ttlSeconds = this.ttlOf(prepared);
    if (ttlSeconds === null) return null;
    const key = responseCacheKey(caller.projectId, prepared.input.target.provider.name, prepared.request);
    let stored: CachedAnswer | null = null;
    try {
      stored = await this.cache.find(caller.projectId, key, ttlSeconds);
    } catch (err) {
      // The cache is an optimisation: a failed read is a miss, the provider answers.
      this.logger.warn(`lookup failed: ${(err as Error).message}`);
    }
    if (!stored) return { projectId: caller.projectId, key, ttlSeconds, headers: { [CACHE_RESULT_HEADER]: 'miss' } };
    return { hit: await this.served(caller, prepared, admission, startedAt, stored) };
  }

  /**
   * Stores an answer recorded after a miss and returns the headers to answer with (none when no
   * cache applied); never throws: a failed store costs the next call a miss, nothing else.
   */
  async store(lookup: CacheMiss | null, answer: { completion: ChatCompletion; tokens?: TokenCounts }): Promise<Record<string, string>> {
    if (!lookup) return {};
    try {
      await this.cache.store(
        lookup.projectId,
        lookup.key,
        { completion: answer.completion, tokens: answer.tokens ?? null },
        lookup.ttlSeconds,
      );
    } catch (err) {
      this.logger.warn(`store failed: ${(err as Error).message}`);
    }
    return lookup.headers;
  }

  /** A streamed answer after a miss: the header, and its completion stored once `finish()` recorded it. */
  storing(lookup: CacheMiss | null, streamed: StreamResult): StreamResult {
    if (!lookup) return streamed;
    const finish = async () => {
      const completion = await streamed.finish();
      await this.store(lookup, { completion });
      return completion;
    };
    return { ...streamed, headers: { ...streamed.headers, ...lookup.headers }, finish };
  }

  /**
   * The stored answer as this call's: a new completion id and `created` (an id names one answer),
   * the stored tokens; recorded as a hit with no cost. A streamed call gets the stream the stored
   * completion's chunks make (as an Idempotency-Key replay does), recorded when it ended.
   */
  private async served(
    caller: ProjectPrincipal,
    prepared: PreparedInvocation,
    admission: Admission,
    startedAt: Date,
    stored: CachedAnswer,
  ): Promise<CompletionResult | StreamResult> {
    const completion: ChatCompletion = { ...stored.completion, id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000) };
    const headers = { ...admission.headers, [CACHE_RESULT_HEADER]: 'hit' };
    const { metadata: _metadata, ...request } = prepared.request;
    const record = (ttftMs: number | null) =>
      this.recorder
        .recordSuccess(caller, prepared, {
          status: 200,
          error: null,
          completion,
          // What would have been sent: the request the key was made of.
          providerRequest: request,
          providerResponse: completion,
          usage: completion.usage,
          ...(stored.tokens ? { tokens: stored.tokens } : {}),
          startedAt,
          ttftMs,
          cacheHit: true,
        })
        // No upstream tokens were spent: none count against tokens per day.
        .finally(() => admission.release(0));
    if (!prepared.input.stream) {
      await record(null);
      return { type: 'completion', threadId: prepared.threadId, completion, headers };
    }
    const ttftMs = Date.now() - startedAt.getTime();
    let ended = false;
    async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
      try {
        yield* chunksOf(completion);
        ended = true;
      } finally {
        // The transport stopped reading (client gone): the call no longer counts as running.
        if (!ended) admission.release(0);
      }
    }
    const finish = async () => {
      if (!ended) throw new Error('finish() called before the stream ended');
      await record(ttftMs).catch((err: unknown) => {
        throw storeFailure(err);
      });
      return completion;
    };
    return { type: 'stream', threadId: prepared.threadId, headers, chunks: chunks(), finish };
  }
}
