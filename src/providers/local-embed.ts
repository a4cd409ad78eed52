/**
 * The `local` provider's embedding model `embed` (docs/embeddings.md). Like `local/echo`, it is
 * not a model: it understands nothing. It gives every text a deterministic unit vector so that
 * embeddings work with no account anywhere, in development, demos and tests, and texts sharing
 * words get vectors pointing the same way (a bag of words, by signed feature hashing):
 *
 * - the text's words are its runs of letters and digits (Unicode), lower-cased; a text with none
 *   counts as the one word that is the whole text;
 * - each word is SHA-256-hashed (UTF-8); the first four bytes (big-endian, modulo the dimension
 *   count) pick a coordinate, the fifth byte's lowest bit its sign (1: -1, 0: +1), and that
 *   coordinate gets +1 or -1 for each occurrence;
 * - the vector is divided by its Euclidean length (a unit vector); if it comes out all zeros (words
 *   cancelling out), it is the unit vector of the whole text's hash, as for a text with no words;
 * - `dimensions` (default 256, at most 4096) is the number of coordinates hashed into: another
 *   `dimensions` gives another vector, not a cut of the default one;
 * - usage counts words, as `local/echo` does.
 *
 * The same text always gives the same vector, on every machine and version of Parley.
 */
import { createHash } from 'node:crypto';

import { countWords } from './message-text';
import { EmbeddingRequest, EmbeddingResult, ProviderError } from './provider.types';

export const LOCAL_EMBEDDING_MODEL = 'embed';
export const LOCAL_EMBEDDING_DEFAULT_DIMENSIONS = 256;
export const LOCAL_EMBEDDING_MAX_DIMENSIONS = 4096;

const WORD = /[\p{L}\p{N}]+/gu;

function addFeature(vector: Float64Array, feature: string): void {
  const hash = createHash('sha256').update(feature, 'utf8').digest();
  const index = hash.readUInt32BE(0) % vector.length;
  vector[index] += (hash[4] & 1) === 1 ? -1 : 1;
}

function normalised(vector: Float64Array): number[] | null {
  let sum = 0;
  for (const x of vector) sum += x * x;
  if (sum === 0) return null;
  const length = Math.sqrt(sum);
  return Array.from(vector, (x) => x / length);
}

/** The unit vector of one text in `dimensions` coordinates (see above). */
export function localEmbedding(text: string, dimensions: number = LOCAL_EMBEDDING_DEFAULT_DIMENSIONS): number[] {
  const vector = new Float64Array(dimensions);
  const words = text.toLowerCase().match(WORD) ?? [text];
  for (const word of words) addFeature(vector, word);
  const unit = normalised(vector);
  if (unit) return unit;
  const whole = new Float64Array(dimensions);
  addFeature(whole, text);
  return normalised(whole)!;
}

/** `local/embed` over a request's texts; token arrays and other models are a bad_request. */
export function localEmbed(req: EmbeddingRequest): EmbeddingResult {
  if (req.model !== LOCAL_EMBEDDING_MODEL) {
    throw new ProviderError('bad_request', `The local provider embeds with the model "${LOCAL_EMBEDDING_MODEL}" only, not "${req.model}"`, {
      provider: 'local',
      param: 'model',
    });
  }
  const dimensions = req.dimensions ?? LOCAL_EMBEDDING_DEFAULT_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > LOCAL_EMBEDDING_MAX_DIMENSIONS) {
    throw new ProviderError('bad_request', `local/${LOCAL_EMBEDDING_MODEL} makes 1 to ${LOCAL_EMBEDDING_MAX_DIMENSIONS} dimensions`, {
      provider: 'local',
      param: 'dimensions',
    });
  }
  const texts = req.input.map((input) => {
    if (typeof input !== 'string') {
      throw new ProviderError(
        'bad_request',
        `local/${LOCAL_EMBEDDING_MODEL} embeds text; token arrays are for OpenAI-compatible providers`,
        {
          provider: 'local',
          param: 'input',
        },
      );
    }
    return input;
  });
  const { input: _input, ...sent } = req;
  return {
    vectors: texts.map((text) => localEmbedding(text, dimensions)),
    model: req.model,
    promptTokens: texts.reduce((sum, text) => sum + countWords(text), 0),
    providerRequest: { ...sent, dimensions },
  };
}
