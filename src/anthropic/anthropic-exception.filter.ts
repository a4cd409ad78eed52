import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import { ApiException, databaseUnavailable, isDatabaseUnavailable, isUnstorableText, resourceError } from '../common/errors';
import { anthropicBodyOf, asAnthropicError } from './anthropic-errors';

/**
 * Renders every error of the `/v1/messages` routes in Anthropic's shape (anthropic-errors.ts),
 * whatever raised it: the global guard (401, 403), the body DTO (400), the core (404, 429, 503)
 * or a provider (400 naming the field, 502, 504). Bound to the controller (`@UseFilters`): Nest
 * tries a route's own filters before the global ApiExceptionFilter, which answers everything else
 * under /v1 in OpenAI's shape. What the global filter does with errors that are not ApiExceptions
 * is done here the same way (a bug: logged with its stack, a 500 without internals).
 *
 * Not here: what is refused before routing (a body over the size limit, 413), which
 * common/http/early-error.ts answers in OpenAI's shape for every `/v1` path.
 */
@Catch()
export class AnthropicExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request | undefined>();
    if (res.headersSent) {
      // A stream already started: its writer reports its own errors (an `error` event).
      res.end();
      return;
    }
    const id = (req as { id?: unknown } | undefined)?.id;
    const requestId = typeof id === 'string' ? id : undefined;
    const error = asAnthropicError(this.toApiException(exception, requestId));
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    if (requestId) res.setHeader('request-id', requestId);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.status(error.getStatus()).json(anthropicBodyOf(error, requestId));
  }

  /** As ApiExceptionFilter reads an exception (src/common/errors/api-exception.filter.ts). */
  private toApiException(exception: unknown, requestId: string | undefined): ApiException {
    if (exception instanceof ApiException) return exception;
    if (exception instanceof HttpException) {
      const response = exception.getResponse();
      const message =
        typeof response === 'object' && response !== null && 'message' in response && typeof response.message === 'string'
          ? response.message
          : exception.message;
      return resourceError(exception.getStatus(), message);
    }
    if (isUnstorableText(exception)) {
      this.logger.warn(`request ${requestId ?? '-'}: text PostgreSQL cannot store reached SQL: ${(exception as Error).message}`);
      return resourceError(HttpStatus.BAD_REQUEST, 'The request holds text that cannot be stored (U+0000 or an unpaired UTF-16 surrogate)');
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.error(`request ${requestId ?? '-'}: database unavailable: ${(exception as Error).message}`);
      return databaseUnavailable();
    }
    this.logger.error(
      `request ${requestId ?? '-'}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
    return resourceError(HttpStatus.INTERNAL_SERVER_ERROR, 'Internal server error');
  }
}
