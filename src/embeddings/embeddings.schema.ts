import { z } from 'zod';

/**
 * `POST /v1/embeddings` request body: OpenAI's fields (the `openai` SDK's EmbeddingCreateParams),
 * nothing else: any other field is refused (400 naming it), never silently dropped.
 */

/** OpenAI's limit on the inputs of one request. */
export const EMBEDDING_MAX_INPUTS = 2048;

const text = z.string().min(1, 'an input text must not be empty');
const tokens = z.array(z.number().int().min(0)).min(1, 'a token array must not be empty');

export const embeddingsBodySchema = z.strictObject({
  model: z.string().min(1).max(400),
  /** A text, texts, a token array or token arrays (token arrays: OpenAI-compatible providers only). */
  input: z.union([
    text,
    z.array(text).min(1, 'input must not be an empty array').max(EMBEDDING_MAX_INPUTS),
    tokens,
    z.array(tokens).min(1, 'input must not be an empty array').max(EMBEDDING_MAX_INPUTS),
  ]),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.number().int().min(1).max(65_536).nullish(),
  user: z.string().max(256).nullish(),
});

export type EmbeddingsBody = z.output<typeof embeddingsBodySchema>;

/** The inputs as a list: one text or token array is a batch of one. */
export function inputsOf(input: EmbeddingsBody['input']): string[] | number[][] {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as string[] | number[][];
}

/** OpenAI's answer. */
export const EMBEDDING_LIST_SCHEMA = {
  type: 'object',
  required: ['object', 'data', 'model', 'usage'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['object', 'index', 'embedding'],
        properties: {
          object: { type: 'string', enum: ['embedding'] },
          index: { type: 'integer' },
          embedding: {
            oneOf: [
              { type: 'array', items: { type: 'number' } },
              { type: 'string', description: 'base64 of little-endian float32' },
            ],
          },
        },
      },
    },
    model: { type: 'string' },
    usage: {
      type: 'object',
      required: ['prompt_tokens', 'total_tokens'],
      properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
    },
  },
};
