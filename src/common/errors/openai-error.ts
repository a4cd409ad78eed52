import { ApiException } from './api-exception';

/**
 * The error body of the OpenAI-shaped `/v1` surface: `{error: {message, type, param, code}}` with
 * OpenAI's status codes, which the official SDKs turn into their typed errors
 * (AuthenticationError, NotFoundError, BadRequestError with `param`, RateLimitError, ...).
 * See docs/openai-compatibility.md.
 */
export class OpenAIApiException extends ApiException {}

export interface OpenAIErrorFields {
  type?: string;
  param?: string | null;
  code?: string | null;
}

/** OpenAI's `type` for a status, where the caller gives none. */
export function openaiErrorType(status: number): string {
  if (status === 400 || status === 404 || status === 409 || status === 413 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'service_unavailable';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

export function openaiError(
  status: number,
  message: string,
  fields: OpenAIErrorFields = {},
  headers: Record<string, string> = {},
): OpenAIApiException {
  return new OpenAIApiException(
    status,
    { error: { message, type: fields.type ?? openaiErrorType(status), param: fields.param ?? null, code: fields.code ?? null } },
    headers,
  );
}

/** The text of any of Parley's other error bodies: `{error: {message}}`, `{error, message}`, `{error, issues}` or `{error}`. */
export function errorMessageOf(body: Record<string, unknown>): string {
  const { error, message, issues } = body as { error?: unknown; message?: unknown; issues?: unknown };
  if (typeof message === 'string') return message;
  // The spec's invoke 400: its first issue says what is wrong.
  const issue = Array.isArray(issues) ? (issues[0] as { message?: unknown } | undefined) : undefined;
  if (typeof issue?.message === 'string') return issue.message;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return 'Error';
}

const CODE_BY_STATUS: Record<number, string> = {
  401: 'invalid_api_key',
  403: 'permission_denied',
  404: 'not_found',
  429: 'rate_limit_exceeded',
};

/**
 * A spec-shaped error that OpenAI names otherwise than by its status: an exhausted budget is a 429
 * whose `type` and `code` are `insufficient_quota` (the SDKs' RateLimitError with that code).
 */
export class OpenAIFieldsException extends ApiException {
  constructor(
    status: number,
    body: Record<string, unknown>,
    headers: Record<string, string>,
    readonly openai: { type: string; code: string },
  ) {
    super(status, body, headers);
  }
}

/** An error built for the spec's surfaces (the guard's 401, a 503, a 413), re-shaped for `/v1`; status and headers kept. */
export function asOpenAIError(err: ApiException): OpenAIApiException {
  if (err instanceof OpenAIApiException) return err;
  const status = err.getStatus();
  // A failure that names the request field at fault (a provider's 400) keeps it as `param`.
  const param = (err as { param?: unknown }).param;
  const named = err instanceof OpenAIFieldsException ? err.openai : { code: CODE_BY_STATUS[status] ?? null };
  return openaiError(status, errorMessageOf(err.body), { ...named, param: typeof param === 'string' ? param : null }, err.headers);
}

/** OpenAI's inner error object, `{message, type, param, code}`. */
export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/**
 * The OpenAI error object of any failure after the headers went out (a stream's error event, a
 * background response's `error`): an ApiException re-shaped as the filter would, anything else an
 * internal error told without details. The one shaper of OpenAI's stream errors.
 */
export function openaiErrorObjectOf(err: unknown): OpenAIErrorObject {
  const shaped = err instanceof ApiException ? asOpenAIError(err) : openaiError(500, 'Internal server error');
  return (shaped.body as { error: OpenAIErrorObject }).error;
}

/** Requests of the OpenAI-shaped surface, whose errors take OpenAI's shape. */
export function isOpenAIPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}
