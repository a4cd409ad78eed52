import { LOCAL_EMBEDDING_MAX_DIMENSIONS, LOCAL_EMBEDDING_MODEL } from './local-embed';

export interface EmbeddingTargetProblem {
  param: 'model' | 'dimensions';
  message: string;
}

/**
 * Why a provider of `type` cannot make these embeddings, or undefined when it can (as far as Parley
 * knows without asking the upstream). Checked when an embedding entry's version is saved and when
 * `/v1/embeddings` is called, so both refuse alike (docs/embeddings.md).
 */
export function embeddingTargetProblem(
  type: string,
  provider: string,
  model: string,
  dimensions: number | null | undefined,
): EmbeddingTargetProblem | undefined {
  if (type === 'anthropic')
    return { param: 'model', message: `Provider "${provider}" is an anthropic provider, which has no embeddings API` };
  if (type !== 'local') return undefined;
  if (model !== LOCAL_EMBEDDING_MODEL) {
    return {
      param: 'model',
      message: `The local provider embeds with 'local/${LOCAL_EMBEDDING_MODEL}' only; 'local/${model}' is not an embedding model`,
    };
  }
  if (dimensions != null && dimensions > LOCAL_EMBEDDING_MAX_DIMENSIONS) {
    return { param: 'dimensions', message: `local/${LOCAL_EMBEDDING_MODEL} makes 1 to ${LOCAL_EMBEDDING_MAX_DIMENSIONS} dimensions` };
  }
  return undefined;
}
