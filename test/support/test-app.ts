import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  app: INestApplication;
  http: () => ReturnType<typeof request>;
  dataSource: DataSource;
  close: () => Promise<void>;
}

/**
 * The real application, wired as main.ts wires it, on a fresh in-memory PGlite, or on the
 * PostgreSQL named by DATABASE_URL (CI runs the suite on both). Tests on PostgreSQL share one
 * database, so every test works inside projects of its own (see factories.ts).
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  // The fake upstreams listen on loopback, which the outbound policy refuses unless allowed.
  Object.assign(process.env, { LOG_LEVEL: 'silent', PARLEY_ADMIN_KEY: TEST_ADMIN_KEY, PROVIDER_ALLOWED_HOSTS: '127.0.0.1,localhost', ...env });
  if (!process.env.DATABASE_URL && env.DATA_DIR === undefined) process.env.DATA_DIR = 'memory://';
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  configureApp(app);
  await app.init();
  const server = app.getHttpServer();
  return {
    app,
    http: () => request(server),
    dataSource: app.get(DataSource),
    close: () => app.close(),
  };
}
