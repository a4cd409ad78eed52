import type { z } from 'zod';

import { badParam, invalidRequest } from '../common/errors/openai-request-errors';
import { EMBEDDING_MAX_INPUTS } from './embeddings.schema';

const INPUT_SHAPES =
  `'input' must be a non-empty string, an array of 1 to ${EMBEDDING_MAX_INPUTS} non-empty strings, ` +
  `a non-empty array of token ids, or an array of 1 to ${EMBEDDING_MAX_INPUTS} such arrays`;

/**
 * A body that failed validation as OpenAI's 400: the first problem, `param` naming its field. A
 * wrong `input` is one of four shapes gone wrong, so its message lists the shapes.
 */
export function invalidOpenAIRequest(error: z.ZodError) {
  const issue = error.issues[0];
  if (issue.path[0] === 'input' && issue.code !== 'unrecognized_keys') {
    return badParam('input', issue.code === 'invalid_union' ? INPUT_SHAPES : `${INPUT_SHAPES} (${issue.message})`);
  }
  return invalidRequest(error);
}
