import { randomBytes } from 'node:crypto';

import { INestApplicationContext, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';

import { AppModule } from '../../src/app.module';
import { ALL_ACCESS, ProjectPrincipal } from '../../src/auth/principal';
import { WorkspacesService } from '../../src/workspaces/workspaces.service';
import { useWorkerPGlite } from '../support/shared-pglite';

/**
 * The medium tier (docs/testing.md): the application's services on a real database (the worker's
 * PostgreSQL database, or an in-memory PGlite from the run's migrated dump), without HTTP. For
 * rules that HTTP adds nothing to; what a client sees stays in the e2e files.
 */
export interface ServiceContext {
  get<T>(type: Type<T>): T;
  dataSource: DataSource;
  close(): Promise<void>;
}

export async function createServiceContext(): Promise<ServiceContext> {
  Object.assign(process.env, { LOG_LEVEL: 'silent' });
  if (!process.env.DATABASE_URL) process.env.DATA_DIR = 'memory://';
  // The jest worker's PGlite when there is one (test/support/shared-pglite.ts), else one of its own from the dump.
  if (!process.env.DATABASE_URL && process.env.PARLEY_TEST_PGLITE_TEMPLATE && !(await useWorkerPGlite())) {
    process.env.DATA_DIR_TEMPLATE = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
  }
  let context: INestApplicationContext;
  try {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    context = await moduleRef.init();
  } finally {
    delete process.env.DATA_DIR_TEMPLATE;
  }
  return {
    get: (type) => context.get(type),
    dataSource: context.get(DataSource),
    close: () => context.close(),
  };
}

const slug = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

/** Factory: a workspace and project of their own (with the default environments), as the caller they make. */
export async function projectCaller(ctx: ServiceContext): Promise<ProjectPrincipal> {
  const workspaces = ctx.get(WorkspacesService);
  const workspace = await workspaces.createWorkspace({ slug: slug('ws') });
  const project = await workspaces.createProject(workspace.slug, { slug: slug('proj') });
  return {
    kind: 'project',
    ...ALL_ACCESS,
    keyId: 'medium-tier',
    keyName: 'medium-tier',
    projectId: project.id,
    projectSlug: project.slug,
    workspaceId: workspace.id,
    workspaceSlug: workspace.slug,
  };
}
