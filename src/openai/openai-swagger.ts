import { openApiSchemaOf } from '../common/swagger/zod-schema';
import { COMPLETION_SCHEMA } from '../invocation/invoke-swagger';
import { chatCompletionsBodySchema } from './chat-completions.schema';

/** OpenAPI schemas of the `/v1` surface; the request body's is generated from its zod schema. */

export const CHAT_COMPLETIONS_BODY_SCHEMA = openApiSchemaOf(chatCompletionsBodySchema);

/** OpenAI's completion: the spec's completion plus `refusal` and `logprobs`. */
export const CHAT_COMPLETION_SCHEMA = COMPLETION_SCHEMA;

/** OpenAI's error body; in common/ so that every OpenAI-shaped surface (openai/, embeddings/) documents it. */
export { OPENAI_ERROR_SCHEMA } from '../common/swagger/error-responses';

const MODEL_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'created', 'owned_by'],
  properties: {
    id: { type: 'string', example: 'demo-prompt@production' },
    object: { type: 'string', enum: ['model'] },
    created: { type: 'integer', description: 'Unix seconds' },
    owned_by: { type: 'string', example: 'default/default' },
  },
};

export { MODEL_SCHEMA };
export const MODEL_LIST_SCHEMA = {
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: MODEL_SCHEMA } },
};
