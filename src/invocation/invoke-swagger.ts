/** OpenAPI schemas of the invoke answers (the request body's schema is generated from zod). */

export const COMPLETION_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string', example: 'chatcmpl-01a2...' },
    object: { type: 'string', enum: ['chat.completion'] },
    created: { type: 'integer', description: 'Unix seconds' },
    model: { type: 'string', example: 'echo' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer', example: 0 },
          message: {
            type: 'object',
            required: ['role', 'content'],
            properties: {
              role: { type: 'string', enum: ['assistant'] },
              content: { type: 'string', nullable: true },
              tool_calls: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    type: { type: 'string', enum: ['function'] },
                    function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
                  },
                },
              },
            },
          },
          finish_reason: { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] },
        },
      },
    },
    usage: {
      type: 'object',
      description: 'token counts, when the provider reports them',
      properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
    },
  },
};

export const INVOKE_ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'issues'],
  properties: {
    error: { type: 'string', enum: ['Invalid request body'] },
    issues: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'keys', 'path', 'message'],
        properties: {
          code: { type: 'string', enum: ['unrecognized_keys', 'invalid_type'] },
          keys: { type: 'array', items: { type: 'string' } },
          path: { type: 'array', items: { type: 'string' } },
          message: { type: 'string' },
        },
      },
    },
  },
};
