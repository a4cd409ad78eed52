import { z } from 'zod';

import { namedFunctionChoiceSchema } from './chat-message.schema';
import { expects } from './zod-issues';

/** Both bounds in one phrase: zod alone would only name the bound that failed ("<= 2"). */
function numberBetween(min: number, max: number) {
  const phrase = expects(`number between ${min} and ${max}`);
  return z.number().min(min, phrase).max(max, phrase);
}

/** Model names are stored in varchar(200) columns (versions.model, request_logs.model). */
export const MODEL_NAME_MAX_LENGTH = 200;

/**
 * The sampling settings a version stores and an invoke body overrides, with the chat-completion
 * API's ranges: defined once, so a value a version may store is a value a request may send.
 */
export const samplingSettingsShape = {
  // Tokens are counted in whole units and zero tokens is no answer: integer >= 1.
  max_tokens: z.number().int().min(1, expects('integer >= 1')).optional(),
  temperature: numberBetween(0, 2).optional(),
  top_p: numberBetween(0, 1).optional(),
  // The chat-completion API's own range for both penalties.
  presence_penalty: numberBetween(-2, 2).optional(),
  frequency_penalty: numberBetween(-2, 2).optional(),
};

/** `tool_choice` of an invoke body or a stored version: adds `required` to what a message's tool_choice allows. */
export const toolChoiceSchema = z.union(
  [z.enum(['auto', 'required', 'none']), namedFunctionChoiceSchema],
  expects('"auto", "required", "none" or {type: "function", function: {name}}'),
);
