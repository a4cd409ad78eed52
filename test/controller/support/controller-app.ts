import type { Server } from 'node:http';

import { INestApplication, Provider, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { AppModule } from '../../../src/app.module';
import { configureApp } from '../../../src/app.setup';
import { ApiKeysService } from '../../../src/auth/api-keys.service';
import { SessionPrincipals } from '../../../src/auth/session-cookie';
import { ExpressHttpAdapter } from '../../../src/common/http/express-http-adapter';
import { AppConfig, loadAppConfig } from '../../../src/config/app-config';
import { ConfigModule } from '../../../src/config/config.module';
import { IdempotencyInterceptor } from '../../../src/idempotency/idempotency.interceptor';
import { IdempotencyService } from '../../../src/idempotency/idempotency.service';
import { InvocationController } from '../../../src/invocation/invocation.controller';
import { InvocationService } from '../../../src/invocation/invocation.service';
import { SpecInvokeParser } from '../../../src/invocation/spec-invoke.parser';
import { SpecInvokeTransport } from '../../../src/invocation/spec-invoke.transport';
import { LoggingModule } from '../../../src/logging/logging.module';
import { MessagesController } from '../../../src/messages/messages.controller';
import { MessagesService } from '../../../src/messages/messages.service';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { ThreadsController } from '../../../src/threads/threads.controller';
import { ThreadsService } from '../../../src/threads/threads.service';
import { createFakes, FakeApiKeys, Fakes } from './fakes';

export interface ControllerApp {
  app: INestApplication;
  http: () => ReturnType<typeof request>;
  fakes: Fakes;
  close: () => Promise<void>;
}

/**
 * The controllers of the spec's endpoints, in the order AppModule registers their routes: the
 * invoke catch-all (`POST /:workspace/:project/:slug/:environment`) last, as in the app, so it
 * does not take `POST /v2/threads/{id}/messages`.
 */
export const SPEC_CONTROLLERS: Type[] = [ThreadsController, MessagesController, InvocationController];

const GLOBAL_ENHANCERS: unknown[] = [APP_GUARD, APP_PIPE, APP_FILTER, APP_INTERCEPTOR];

type ModuleRef = Type | { module: Type; imports?: unknown[]; providers?: Provider[] } | { forwardRef: () => unknown };

/**
 * Every global guard, pipe, filter and interceptor the application's module tree declares
 * (`{provide: APP_GUARD, ...}` and the like, in AppModule or any module it imports), as declared:
 * the controller tier binds exactly these, so a global added to the app is bound here too (and,
 * if it needs a service this tier does not fake, fails the tier's boot rather than being skipped).
 */
export function appGlobalEnhancers(root: Type = AppModule): Provider[] {
  const found: Provider[] = [];
  const seen = new Set<unknown>();
  const visit = (ref: ModuleRef | undefined): void => {
    if (!ref || seen.has(ref)) return;
    seen.add(ref);
    if ('forwardRef' in ref) return visit(ref.forwardRef() as ModuleRef);
    if (typeof (ref as { then?: unknown }).then === 'function') {
      throw new Error('An async dynamic module in the app: the controller tier cannot see its global enhancers');
    }
    const moduleClass = typeof ref === 'function' ? ref : ref.module;
    const dynamic: { providers?: Provider[]; imports?: unknown[] } = typeof ref === 'function' ? {} : ref;
    const providers: Provider[] = [...(Reflect.getMetadata('providers', moduleClass) ?? []), ...(dynamic.providers ?? [])];
    for (const provider of providers) {
      if (typeof provider === 'object' && GLOBAL_ENHANCERS.includes(provider.provide)) found.push(provider);
    }
    for (const imported of [...(Reflect.getMetadata('imports', moduleClass) ?? []), ...(dynamic.imports ?? [])]) visit(imported);
  };
  visit(root);
  return found;
}

/** Stands in for TypeORM's DataSource, which the idempotency interceptor takes: any use of it fails the test. */
const NO_DATABASE = new Proxy(
  {},
  {
    get(_target, name) {
      // Nest looks for lifecycle hooks (onModuleInit, ...) and promises (then) on every provider.
      if (typeof name === 'symbol' || /^(on[A-Z]\w*|beforeApplicationShutdown|then)$/.test(name)) return undefined;
      throw new Error(`The controller tier has no database: DataSource.${name} was used`);
    },
  },
);

/** Another group of controllers than the spec's (the evaluations': evals.controller-spec.ts). */
export interface ControllerAppOptions {
  /** The controllers booted instead of SPEC_CONTROLLERS, in the order AppModule registers their routes. */
  controllers?: Type[];
  /** Providers besides the spec's fakes: those controllers' services, as fakes of their own. */
  providers?: Provider[];
  /** The keys the guard knows, instead of FakeApiKeys' four (keys holding other scopes). */
  keys?: FakeApiKeys;
}

/**
 * The spec's controllers, booted as main.ts boots the app (the same HTTP adapter, configureApp's
 * middleware: request id, metrics, the JSON body parser and its 413, the audit context) with the
 * app's global enhancers (the API-key guard, the validation pipe, the exception filter) and the
 * routes' own interceptor (Idempotency-Key), but with in-memory fakes for every service behind them
 * (./fakes.ts): no database, neither PGlite nor PostgreSQL, is opened or even configured.
 */
export async function createControllerApp(options: ControllerAppOptions = {}): Promise<ControllerApp> {
  const fakes = createFakes();
  if (options.keys) fakes.keys = options.keys;
  const moduleRef = await Test.createTestingModule({
    // The real configuration and logger modules; the configuration from defaults only, not this process's environment.
    imports: [ConfigModule, LoggingModule],
    controllers: options.controllers ?? SPEC_CONTROLLERS,
    providers: [
      ...appGlobalEnhancers(),
      SessionPrincipals,
      MetricsService,
      IdempotencyInterceptor,
      SpecInvokeParser,
      SpecInvokeTransport,
      { provide: ApiKeysService, useValue: fakes.keys },
      { provide: ThreadsService, useValue: fakes.threads },
      { provide: MessagesService, useValue: fakes.messages },
      { provide: InvocationService, useValue: fakes.invocation },
      { provide: IdempotencyService, useValue: fakes.idempotency },
      { provide: DataSource, useValue: NO_DATABASE },
      ...(options.providers ?? []),
    ],
  })
    .overrideProvider(AppConfig)
    .useValue(loadAppConfig({ LOG_LEVEL: 'silent' }))
    .compile();
  const app = moduleRef.createNestApplication(new ExpressHttpAdapter(), { bodyParser: false, logger: false });
  configureApp(app);
  await app.init();
  const server = app.getHttpServer();
  const close = async () => {
    // A request a failed test left waiting (a held handler) must not keep the server, and the run, open.
    (server as Server).closeAllConnections();
    await app.close();
  };
  return { app, http: () => request(server), fakes, close };
}

/** Requests with `key` (the app is read when each is sent: it is booted in beforeAll). */
export function keyedApi(t: () => ControllerApp, key: string) {
  return {
    get: (path: string) => t().http().get(path).set('X-API-Key', key),
    post: (path: string, body?: unknown) => {
      const req = t().http().post(path).set('X-API-Key', key);
      return body === undefined ? req : req.send(body as object);
    },
    postRaw: (path: string, raw: string) => t().http().post(path).set('X-API-Key', key).set('Content-Type', 'application/json').send(raw),
    delete: (path: string) => t().http().delete(path).set('X-API-Key', key),
    put: (path: string, body?: unknown) => {
      const req = t().http().put(path).set('X-API-Key', key);
      return body === undefined ? req : req.send(body as object);
    },
    patch: (path: string, body?: unknown) => {
      const req = t().http().patch(path).set('X-API-Key', key);
      return body === undefined ? req : req.send(body as object);
    },
    /** A body as given (malformed JSON, a JSON array), with any method. */
    raw: (method: 'post' | 'put' | 'patch', path: string, raw: string) =>
      t().http()[method](path).set('X-API-Key', key).set('Content-Type', 'application/json').send(raw),
  };
}
