import type { z } from 'zod';

import { OpenAIApiException, openaiError } from './openai-error';

/**
 * OpenAI's 400s and 404s for what is wrong with a request, shared by the `/v1` surfaces in
 * OpenAI's format (openai/, embeddings/), which are peers and cannot import each other.
 */

/** A path as OpenAI's `param` writes it: `messages.[0].content`. */
export function paramOf(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part) => (typeof part === 'number' ? `[${part}]` : String(part))).join('.');
}

/** The first problem of a body that failed validation, as OpenAI's 400 with the field at fault in `param`. */
export function invalidRequest(error: z.ZodError): OpenAIApiException {
  const issue = error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    const param = paramOf([...issue.path, issue.keys[0]]);
    return openaiError(400, `Unrecognized request argument supplied: ${param}`, { param });
  }
  const param = paramOf(issue.path);
  return openaiError(400, param ? `Invalid value for '${param}': ${issue.message}` : issue.message, { param: param || null });
}

export const badParam = (param: string, message: string) => openaiError(400, message, { param });

/** OpenAI's answer for a model that does not exist or is not the caller's. */
export const modelNotFound = (model: string) =>
  openaiError(404, `The model '${model}' does not exist or you do not have access to it.`, { param: 'model', code: 'model_not_found' });
