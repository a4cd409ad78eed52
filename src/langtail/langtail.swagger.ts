/** OpenAPI schemas of the langtail SDK's read calls, with the demo seed's values as examples. */

export const PLAYGROUND_STATE_SCHEMA = {
  type: 'object',
  required: ['state', 'chatInput'],
  properties: {
    state: {
      type: 'object',
      required: ['type', 'template', 'args'],
      properties: {
        type: { type: 'string', enum: ['chat'] },
        template: {
          type: 'array',
          items: { type: 'object' },
          example: [{ role: 'system', content: 'Greet {{name}} warmly, in one short sentence.' }],
        },
        tools: { type: 'array', items: { type: 'object' } },
        args: {
          type: 'object',
          example: { model: 'echo', stream: false },
          description: 'model and the stored parameters (temperature, max_tokens, ...; jsonmode for response_format json_object)',
        },
      },
    },
    chatInput: { type: 'object', additionalProperties: { type: 'string' }, example: { name: 'there' }, description: 'variable defaults' },
  },
};

export const LANGTAIL_DEPLOYMENTS_SCHEMA = {
  type: 'object',
  required: ['deployments'],
  properties: {
    deployments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['deployedAt', 'promptSlug', 'environment', 'version'],
        properties: {
          deployedAt: { type: 'string', format: 'date-time' },
          promptSlug: { type: 'string', example: 'demo-prompt' },
          environment: { type: 'string', example: 'production' },
          version: { type: 'string', example: '1' },
        },
      },
    },
  },
};
