import { z } from 'zod';

import { expects, samplingSettingsShape, toolChoiceSchema } from '../../common/chat';

/** The model settings a version stores (and a routing target overrides), with the chat-completion API's ranges. */
export const modelParametersSchema = z.strictObject({
  ...samplingSettingsShape,
  seed: z.number().int().optional(),
  // The chat-completion API accepts up to 4 stop sequences.
  stop: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(4)], expects('string or array of 1 to 4 strings')).optional(),
  response_format: z.strictObject({ type: z.enum(['json_object', 'text']) }).optional(),
  tool_choice: toolChoiceSchema.optional(),
});
