import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { ExpressHttpAdapter } from '../../src/common/http/express-http-adapter';
import { useWorkerPGlite } from './shared-pglite';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  app: INestApplication;
  http: () => ReturnType<typeof request>;
  dataSource: DataSource;
  close: () => Promise<void>;
}

/**
 * The real application, wired as main.ts wires it, on the jest worker's own database, which the
 * files that worker runs share one after another, so every test works inside projects of its own
 * (see factories.ts): an in-memory PGlite started once per worker from the run's migrated dump
 * (test/harness), or the worker's PostgreSQL database when DATABASE_URL is set (CI runs the suite
 * on both).
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  // The fake upstreams listen on loopback, which the outbound policy refuses unless allowed.
  Object.assign(process.env, {
    LOG_LEVEL: 'silent',
    PARLEY_ADMIN_KEY: TEST_ADMIN_KEY,
    PROVIDER_ALLOWED_HOSTS: '127.0.0.1,localhost',
    ...env,
  });
  if (!process.env.DATABASE_URL && env.DATA_DIR === undefined) process.env.DATA_DIR = 'memory://';
  const fromTemplate = !process.env.DATABASE_URL && process.env.DATA_DIR === 'memory://' && process.env.PARLEY_TEST_PGLITE_TEMPLATE;
  // The jest worker's PGlite when there is one (shared-pglite.ts), else a PGlite of its own from the dump.
  if (fromTemplate && !(await useWorkerPGlite())) process.env.DATA_DIR_TEMPLATE = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
  let app: INestApplication;
  try {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication(new ExpressHttpAdapter(), { bodyParser: false, logger: false });
    configureApp(app);
    await app.init();
  } finally {
    // Read at boot only; a server process or CLI this file starts next must not inherit it.
    delete process.env.DATA_DIR_TEMPLATE;
  }
  const server = app.getHttpServer();
  return {
    app,
    http: () => request(server),
    dataSource: app.get(DataSource),
    close: () => app.close(),
  };
}
