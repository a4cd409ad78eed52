import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import { AppConfig } from '../config/app-config';
import { requestIdOf } from './request-id';

/** Levels at which pino-http's per-request line (info) is printed. */
const LINE_LEVELS: ReadonlySet<string> = new Set(['info', 'debug', 'trace']);

/**
 * Structured JSON logs, one line per request with a request id (taken from X-Request-Id when a
 * load balancer sets one). Keys never reach the logs, and neither do bodies: prompts, variables
 * and replies are the users' data (doNotRecord) and are not application log material.
 */
export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      // The id echoRequestId (app.setup.ts) fixed and echoed; computed here only outside it.
      genReqId: (req: IncomingMessage) => requestIdOf(req),
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { id: string; method: string; url: string; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url,
          remoteAddress: req.remoteAddress,
        }),
      },
      // The "request completed" line is logged at info. Above that level (LOG_LEVEL=warn in
      // production, say) it would be built and thrown away on every request, so it is not set up.
      autoLogging: LINE_LEVELS.has(config.logLevel) ? { ignore: (req: IncomingMessage) => req.url === '/health' || req.url === '/ready' } : false,
    },
  };
}
