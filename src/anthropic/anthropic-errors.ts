import { ApiException, asOpenAIError, type OpenAIErrorObject } from '../common/errors';

/**
 * The error body of `/v1/messages`: Anthropic's `{type: "error", error: {type, message}, request_id}`,
 * which the official `@anthropic-ai/sdk` turns into its typed errors by status (BadRequestError,
 * AuthenticationError, PermissionDeniedError, NotFoundError, RateLimitError, InternalServerError,
 * ServiceUnavailableError, GatewayTimeoutError) and, inside a stream, an `error` event into an
 * APIError of that `type`. docs/anthropic-compatibility.md, "Errors".
 */
export class AnthropicApiException extends ApiException {}

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'api_error'
  | 'overloaded_error';

/** Anthropic's `error.type` for a status (the statuses are Parley's own: 502 upstream failed, 503 database down, 504 timed out). */
export function anthropicErrorType(status: number): AnthropicErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 504) return 'timeout_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

export function anthropicError(status: number, message: string, headers: Record<string, string> = {}): AnthropicApiException {
  return new AnthropicApiException(status, { type: 'error', error: { type: anthropicErrorType(status), message } }, headers);
}

/** A 400 naming the request field at fault, as Anthropic words them: `<field>: <problem>`. */
export const invalidField = (field: string, problem: string) => anthropicError(400, `${field}: ${problem}`);

/**
 * The core's request fields (ProviderRequest's names, in a provider failure's `param`) by the
 * Messages field a client wrote; the others (`n`, `seed`, `response_format`, ...) can only come
 * from a deployment's stored settings and keep their names.
 */
const FIELD_OF_PARAM: Record<string, string> = {
  stop: 'stop_sequences',
  user: 'metadata.user_id',
  reasoning_effort: 'thinking',
  max_completion_tokens: 'max_tokens',
};

/**
 * Any error built for another surface (the guard's 401/403, the core's 404/429/503, a provider's
 * failure, which names the field at fault in `param`) in Anthropic's shape; status and headers
 * (Retry-After) kept. The message is the one the OpenAI-shaped surface gives, prefixed with the
 * field when there is one.
 */
export function asAnthropicError(err: ApiException): AnthropicApiException {
  if (err instanceof AnthropicApiException) return err;
  const { message, param } = (asOpenAIError(err).body as { error: OpenAIErrorObject }).error;
  const field = param ? (FIELD_OF_PARAM[param] ?? param) : null;
  return anthropicError(err.getStatus(), field && !message.startsWith(`${field}:`) ? `${field}: ${message}` : message, err.headers);
}

/** The body Anthropic answers, with the request's id (its `request_id`; null when the request has none). */
export function anthropicBodyOf(err: AnthropicApiException, requestId: string | undefined): Record<string, unknown> {
  return { ...err.body, request_id: requestId ?? null };
}

/**
 * The data of the `error` event that ends a stream failing after its headers (a provider failure,
 * a reply that could not be stored): an ApiException re-shaped as the filter would, anything else
 * an internal error told without details. The one shaper of Anthropic's stream errors.
 */
export function anthropicErrorEventOf(err: unknown, requestId: string | undefined): Record<string, unknown> {
  const shaped = err instanceof ApiException ? asAnthropicError(err) : anthropicError(500, 'Internal server error');
  return anthropicBodyOf(shaped, requestId);
}
