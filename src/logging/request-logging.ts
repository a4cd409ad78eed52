import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Logger as Pino } from 'pino';

import { redactUrl } from '../common/http/redact-url';

/** Probes would fill the log with a line a second. */
const QUIET_PATHS: ReadonlySet<string> = new Set(['/health', '/ready']);

/**
 * After echoRequestId: at `info` and below, one line when a request ends, with its id, method,
 * URL (a credential in its query string redacted: src/common/http/redact-url.ts), client address,
 * status and duration, never headers or bodies. Above `info` there is no middleware at all
 * (docs/performance.md).
 */
export function requestLogging(logger: Pino): ((req: IncomingMessage, res: ServerResponse, next: () => void) => void) | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  return (req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void): void => {
    const id = req.id ?? '';
    if (!QUIET_PATHS.has(req.url ?? '')) {
      const started = Date.now();
      const done = () => {
        res.removeListener('finish', done);
        res.removeListener('close', done);
        const fields = {
          req: { id, method: req.method, url: redactUrl(req.url ?? ''), remoteAddress: req.socket?.remoteAddress },
          res: { statusCode: res.statusCode },
          responseTime: Date.now() - started,
        };
        if (!res.writableFinished) logger.warn(fields, 'request aborted');
        else if (res.statusCode >= 500) logger.error(fields, 'request errored');
        else logger.info(fields, 'request completed');
      };
      res.on('finish', done);
      res.on('close', done);
    }
    next();
  };
}
