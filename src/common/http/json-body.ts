import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as express from 'express';
import { resourceError } from '../errors/api-exception';
import { MALFORMED_JSON_BODY } from '../errors/request-body';

/**
 * Parses every request body as JSON, whatever its Content-Type (the API speaks only JSON, and
 * `curl -d` sends form encoding by default). A body that is not JSON becomes MALFORMED_JSON_BODY,
 * so the endpoint's own validation answers with its documented error; a body over the limit is
 * answered here with 413, before any route runs.
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, type: () => true, strict: false });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: { type?: string; status?: number }) => {
      if (!err) return next();
      if (err.type === 'entity.parse.failed') {
        req.body = MALFORMED_JSON_BODY;
        return next();
      }
      const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
      const message = err.type === 'entity.too.large' ? `Request body is larger than ${limit}` : 'Request body could not be read';
      const exception = resourceError(status, message);
      res.status(exception.getStatus()).json(exception.body);
    });
}
