import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

/** OpenAI's error body `{error: {message, type, param, code}}`: every `/v1` surface in OpenAI's format. */
export const OPENAI_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string', example: 'invalid_request_error' },
        param: { type: 'string', nullable: true, example: 'temperature' },
        code: { type: 'string', nullable: true, example: 'model_not_found' },
      },
    },
  },
};

/** `{error: {message}}`, the body of thread, message and management errors. */
export const RESOURCE_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message'],
      properties: {
        message: { type: 'string', example: 'Thread not found' },
        details: { type: 'array', items: { type: 'string' }, description: 'what exactly was wrong, when known' },
      },
    },
  },
};

/** `{error, message}`: authentication, authorization and service failures. */
export const NAMED_ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string', example: 'Unauthorized' }, message: { type: 'string', example: 'Invalid API key' } },
};

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid body or parameters',
  401: 'Missing or invalid API key',
  403: 'The key may not use this endpoint',
  404: "Not found (also: another project's object, or a malformed id)",
  409: 'Already exists',
  413: 'Body larger than BODY_LIMIT',
};

/** Documents the error statuses an endpoint answers with, each with its real body shape. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        schema: status === 401 || status === 403 ? NAMED_ERROR_SCHEMA : RESOURCE_ERROR_SCHEMA,
      }),
    ),
  );
}
