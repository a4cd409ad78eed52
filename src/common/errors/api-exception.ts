import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * The one exception type that carries a finished response body. The spec fixes a different body
 * per endpoint group, so every error the service answers with is built by one of the factories
 * below and rendered verbatim by ApiExceptionFilter.
 */
export class ApiException extends HttpException {
  constructor(
    status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(body, status);
  }
}

/** `{error: {message}}`: thread, message and management endpoints. */
export function resourceError(status: number, message: string, details?: string[]): ApiException {
  const error: Record<string, unknown> = { message };
  if (details && details.length > 0) error.details = details;
  return new ApiException(status, { error });
}

export const badRequest = (message: string, details?: string[]) => resourceError(HttpStatus.BAD_REQUEST, message, details);
export const notFound = (message: string) => resourceError(HttpStatus.NOT_FOUND, message);
export const conflict = (message: string) => resourceError(HttpStatus.CONFLICT, message);

/** `{error: "Unauthorized", message: "Invalid API key"}` on every endpoint (spec: List Threads; DESIGN: all). */
export function invalidApiKey(): ApiException {
  return new ApiException(HttpStatus.UNAUTHORIZED, { error: 'Unauthorized', message: 'Invalid API key' });
}

export function forbidden(message: string): ApiException {
  return new ApiException(HttpStatus.FORBIDDEN, { error: 'Forbidden', message });
}

/** `{error, message}` for failures that are not about the request body (provider, database, rate limits). */
export function serviceError(status: number, error: string, message: string, headers: Record<string, string> = {}) {
  return new ApiException(status, { error, message }, headers);
}

/** The 503 of a database that is down or unreachable (the exception filter, and stored streams). */
export function databaseUnavailable(): ApiException {
  return serviceError(HttpStatus.SERVICE_UNAVAILABLE, 'Service Unavailable', 'Database unavailable', { 'Retry-After': '1' });
}
