import { ApiException, OpenAIApiException, openaiError } from '../../common/errors';
import type { Refusal } from './criteria-check';

/** OpenAI's 400 naming the parameter at fault. */
export const refused = ({ param, message }: Refusal): OpenAIApiException => openaiError(400, message, { param });

export const evalNotFound = (id: string) => openaiError(404, `Eval with id '${id}' not found.`, { param: 'eval_id', code: 'not_found' });
export const runNotFound = (id: string) => openaiError(404, `Run with id '${id}' not found.`, { param: 'run_id', code: 'not_found' });
export const outputItemNotFound = (id: string) =>
  openaiError(404, `Output item with id '${id}' not found.`, { param: 'output_item_id', code: 'not_found' });

export const modelNotFound = (model: string, param: string) =>
  openaiError(400, `The model '${model}' does not exist or you do not have access to it.`, { param, code: 'model_not_found' });

/**
 * A 400 of the evaluations' own services (`{error: {message: "Invalid request body", details}}`),
 * with its details as OpenAI's message: the exception filter would keep only "Invalid request body".
 * Anything else is left to the filter, which re-shapes it for /v1.
 */
export function asOpenAIError(err: unknown): unknown {
  if (!(err instanceof ApiException) || err instanceof OpenAIApiException || err.getStatus() !== 400) return err;
  const error = (err.body as { error?: { message?: unknown; details?: unknown } }).error;
  const details = Array.isArray(error?.details) ? error.details.filter((d): d is string => typeof d === 'string') : [];
  if (details.length === 0) return err;
  return openaiError(400, details.join('; '));
}
