import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';

import { type EmbeddingOutcome, float32Base64 } from '../invocation/invocation-embed';

/**
 * OpenAI's answer to `POST /v1/embeddings`. `float`: each vector as float32 values (what OpenAI
 * sends, and exactly what `base64` decodes to); `base64`: the bytes of the little-endian float32
 * array, base64-encoded, as OpenAI does (the SDK asks for it and decodes it when the caller does
 * not choose an encoding).
 */
export function toEmbeddingList(outcome: EmbeddingOutcome, encoding: 'float' | 'base64'): CreateEmbeddingResponse {
  return {
    object: 'list',
    data: outcome.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      // The SDK's type says number[]; with base64 the wire carries the string, which the SDK decodes.
      embedding: (encoding === 'base64' ? float32Base64(vector) : vector.map(Math.fround)) as number[],
    })),
    model: outcome.model,
    usage: { prompt_tokens: outcome.promptTokens, total_tokens: outcome.promptTokens },
  };
}
