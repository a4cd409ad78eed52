import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application } from 'express';

import { answerStatusOf } from './answer-status';

/**
 * Nest's express adapter with an HTTP server that builds each request and response on express's
 * own prototypes (`app.request`, `app.response`) through node:http's documented `IncomingMessage`
 * and `ServerResponse` options.
 *
 * express 5 re-parents every request and response (`Object.setPrototypeOf(req, app.request)` in
 * `app.handle`). V8 then gives each one a fresh map outside its inline caches, so every property
 * read on `req` and `res` after it, in express, the router, Nest and Parley, went through the
 * megamorphic or the runtime lookup. Built on those prototypes, express's call changes nothing
 * and the objects keep the maps the caches know (docs/performance-history.md, "Fifth session").
 * HTTPS and `forceCloseConnections` (which Parley uses neither of) keep Nest's own server.
 */
export class ExpressHttpAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    // express keeps them on the app; its typings do not declare them.
    const app = this.getInstance<Application & { request: object; response: object }>();
    this.httpServer = createServer({ IncomingMessage: requestClassOn(app.request), ServerResponse: responseClassOn(app.response) }, app);
  }

  /** A body marked with a status of its own (answeredWith: a 202) is sent with it instead of the route's. */
  override reply(response: unknown, body: unknown, statusCode?: number): unknown {
    return super.reply(response, body, answerStatusOf(body) ?? statusCode);
  }
}

/** A constructor node:http can `new`, whose instances are IncomingMessages with `prototype` as theirs. */
function requestClassOn(prototype: object): typeof IncomingMessage {
  function ExpressRequest(this: IncomingMessage, socket: Socket): void {
    (IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void).call(this, socket);
  }
  ExpressRequest.prototype = prototype;
  return ExpressRequest as unknown as typeof IncomingMessage;
}

/** The same for ServerResponse, whose constructor takes the request and node:http's options. */
function responseClassOn(prototype: object): typeof ServerResponse {
  function ExpressResponse(this: ServerResponse, req: IncomingMessage, options?: object): void {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void).call(this, req, options);
  }
  ExpressResponse.prototype = prototype;
  return ExpressResponse as unknown as typeof ServerResponse;
}
