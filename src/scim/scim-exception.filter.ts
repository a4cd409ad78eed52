import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import {
  ApiException,
  asScimError,
  isDatabaseUnavailable,
  isUniqueViolation,
  isUnstorableText,
  SCIM_CONTENT_TYPE,
  scimError,
  ScimException,
} from '../common/errors';

/**
 * The SCIM controllers' errors (docs/security.md, "SCIM"), all in RFC 7644 §3.12's shape with the
 * status as a string: SCIM's own, any other ApiException re-shaped (status and headers kept), a
 * unique index's refusal (a lost race to create the same user or group) as `uniqueness`, text the
 * database cannot store as `invalidValue`, a database that is down as 503, and anything else as a
 * 500 that carries no internals (logged with its stack).
 */
@Catch()
export class ScimExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('SCIM');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request & { id?: string }>();
    const error = this.toScim(exception, req.id);
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.setHeader('Content-Type', SCIM_CONTENT_TYPE);
    res.status(error.getStatus()).json(error.body);
  }

  private toScim(exception: unknown, requestId: string | undefined): ScimException {
    if (exception instanceof ApiException) return asScimError(exception);
    if (exception instanceof HttpException) return scimError(exception.getStatus(), exception.message);
    if (isUniqueViolation(exception)) return scimError(409, 'Another resource of this directory holds that value', 'uniqueness');
    if (isUnstorableText(exception)) return scimError(400, 'The request holds text that cannot be stored', 'invalidValue');
    if (isDatabaseUnavailable(exception)) {
      this.logger.error(`request ${requestId ?? '-'}: database unavailable: ${(exception as Error).message}`);
      return scimError(503, 'Database unavailable', undefined, { 'Retry-After': '1' });
    }
    this.logger.error(
      `request ${requestId ?? '-'}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
    return scimError(500, 'Internal server error');
  }
}
