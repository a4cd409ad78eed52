import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import { ApiException, databaseUnavailable, resourceError } from './api-exception';
import { isDatabaseUnavailable, isUnstorableText } from './database-errors';
import { asOpenAIError, isOpenAIPath } from './openai-error';
import { asScimError, isScimPath, SCIM_CONTENT_TYPE } from './scim-error';

/**
 * Renders every error the service answers with. Bodies come ready-made from ApiException; Nest's
 * own exceptions (unknown route, wrong method) get the `{error: {message}}` shape; anything else is
 * logged with its stack and answered with a 500 that carries no internals. Under `/v1` every body
 * is re-shaped to OpenAI's `{error: {message, type, param, code}}` (openai-error.ts).
 */
const UNSTORABLE_TEXT_MESSAGE = 'The request holds text that cannot be stored (U+0000 or an unpaired UTF-16 surrogate)';

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request | undefined>();
    // One surface, one error shape: everything under /v1 answers in OpenAI's.
    const requestId = (req as { id?: unknown } | undefined)?.id;
    const response = this.toResponse(exception, typeof requestId === 'string' ? requestId : undefined);
    const scim = req !== undefined && isScimPath(req.path);
    const error = req && isOpenAIPath(req.path) ? asOpenAIError(response) : scim ? asScimError(response) : response;
    if (res.headersSent) {
      // A streamed response already started: the stream writer reports its own errors.
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    // Set here, not left to json(): that keeps a type a handler declared already (GET /v2/export's YAML).
    res.setHeader('Content-Type', scim ? SCIM_CONTENT_TYPE : 'application/json; charset=utf-8');
    res.status(error.getStatus()).json(error.body);
  }

  /** `requestId` goes into the log line of an unexpected error, so an operator finds it from the client's X-Request-Id. */
  private toResponse(exception: unknown, requestId?: string): ApiException {
    if (exception instanceof ApiException) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      const message =
        typeof response === 'object' && response !== null && 'message' in response && typeof response.message === 'string'
          ? response.message
          : exception.message;
      return resourceError(status, message);
    }
    if (isUnstorableText(exception)) {
      // A path that let such text through is a defect to fix: logged, but the client's 400.
      this.logger.warn(`request ${requestId ?? '-'}: text PostgreSQL cannot store reached SQL: ${(exception as Error).message}`);
      return resourceError(HttpStatus.BAD_REQUEST, UNSTORABLE_TEXT_MESSAGE);
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
