import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Application } from 'express';

import { auditContext } from './audit/audit-context';
import { jsonBody } from './common/http/json-body';
import { AppConfig } from './config/app-config';
import { serveConsole } from './console/console-static';
import { PinoNestLogger } from './logging/app-logger';
import { BootQuietLogger } from './logging/boot-quiet-logger';
import { echoRequestId } from './logging/request-id';
import { requestLogging } from './logging/request-logging';
import { instrumentHttp, routeTemplate } from './metrics/http-metrics.middleware';
import { UNMATCHED_ROUTE } from './metrics/metrics.service';
import { enrichDocument, TAG_DESCRIPTIONS } from './setup/swagger-document';
import { Telemetry } from './telemetry/telemetry';

/** What main.ts and the tests both apply to an application, so tests exercise the real wiring. */
export function configureApp(app: INestApplication): INestApplication {
  const config = app.get(AppConfig);
  const logger = app.get(PinoNestLogger);
  app.useLogger(new BootQuietLogger(logger));
  const express = app.getHttpAdapter().getInstance() as Application;
  express.disable('x-powered-by');
  // Behind a load balancer the client address comes from X-Forwarded-For (request logs' requestIP).
  express.set('trust proxy', 'loopback, linklocal, uniquelocal');
  // Before anything can answer: every response carries X-Request-Id.
  app.use(echoRequestId);
  const requestLines = requestLogging(logger.pino);
  if (requestLines) app.use(requestLines);
  // A server span per request while traces are exported (docs/observability.md); nothing is mounted otherwise.
  const traced = telemetryOf(app).httpMiddleware((req) => {
    const route = routeTemplate(req as Parameters<typeof routeTemplate>[0]);
    return route === UNMATCHED_ROUTE ? null : route;
  });
  if (traced) app.use(traced);
  // First, so every request is counted, including those the body parser rejects (route "unmatched").
  instrumentHttp(app);
  app.use(jsonBody(config.bodyLimit));
  // The management API's changes are audited with their caller and request id (not the invoke routes);
  // SCIM's too (docs/security.md, "SCIM").
  app.use('/v2', auditContext);
  app.use('/scim', auditContext);
  setUpSwagger(app);
  serveConsole(app);
  return app;
}

/** The application's Telemetry; off in an application without TelemetryModule (the controller tier's, test/controller). */
function telemetryOf(app: INestApplication): Telemetry {
  try {
    return app.get(Telemetry);
  } catch {
    return Telemetry.OFF;
  }
}

/**
 * The document is built on the first request for it (then kept), not at boot: scanning every route
 * and schema costs ~0.35 s of CPU, which every start (and every test app) paid for a page few open.
 */
function setUpSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => openApiDocument(app), { jsonDocumentUrl: 'docs-json' });
}

/** Parley's OpenAPI document, as /docs-json serves it; the console's API types are generated from it (docs/console.md). */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Parley')
    .setDescription(
      'Prompt and assistant registry, invocation in the chat-completion format, and conversation threads. ' +
        'Project endpoints take a project key in `X-API-Key` (or `Authorization: Bearer`); admin endpoints take the admin key. ' +
        "An admin key reaches a project endpoint by naming the project in `X-Parley-Project: <workspace>/<project>` (404 when it does not exist or is outside a workspace admin key's workspace; its own scopes apply; audited as the admin key).",
    )
    .setVersion('1.0.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'project API key' }, 'api-key')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'admin API key; on a project endpoint, with `X-Parley-Project: <workspace>/<project>`',
      },
      'admin-key',
    );
  for (const [tag, description] of Object.entries(TAG_DESCRIPTIONS)) builder.addTag(tag, description);
  return enrichDocument(SwaggerModule.createDocument(app, builder.build()));
}
