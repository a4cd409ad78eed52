import { randomBytes, randomUUID } from 'node:crypto';

import type { INestApplication } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import type { Role } from '../../src/auth/roles';
import { CSRF_HEADER, SESSION_COOKIE } from '../../src/auth/session-cookie';
import { ConsoleSessionsService } from '../../src/console/console-sessions.service';

/** A role in a whole workspace (no project) or in one project, by slugs. */
export interface PlaceRole {
  workspace: string;
  project?: string;
  role: Role;
}

export interface SignedInPerson {
  id: string;
  email: string;
  /** The `Cookie` header of their console session. */
  cookie: string;
  /** Headers of a request from their session: the cookie, the CSRF header, and X-Parley-Project when a project is named. */
  headers: (project?: string) => Record<string, string>;
}

/** A unique address with upper-case letters in it, so case-insensitive matching is exercised. */
export const uniqueEmail = (name: string) => `${name}.${randomBytes(4).toString('hex')}@Example.com`;

/**
 * A person with roles, signed in to the console: a `users` row and `memberships` inserted by SQL,
 * and a session started through the app's own ConsoleSessionsService.startForUser (as the OpenID
 * Connect callback starts one). The sign-in itself is tested through a real provider (oidc-sign-in.e2e-spec.ts).
 */
export async function signedInPerson(
  t: { app: INestApplication; dataSource: DataSource },
  email: string,
  roles: PlaceRole[],
  { instanceAdmin = false }: { instanceAdmin?: boolean } = {},
): Promise<SignedInPerson> {
  const id = randomUUID();
  await t.dataSource.query('INSERT INTO users (id, email, name, instance_admin, active, created_at) VALUES ($1, $2, $3, $4, true, now())', [
    id,
    email,
    email.split('@')[0],
    instanceAdmin,
  ]);
  for (const place of roles) {
    const [row] = (await t.dataSource.query(
      `SELECT w.id AS workspace_id, p.id AS project_id
         FROM workspaces w LEFT JOIN projects p ON p.workspace_id = w.id AND p.slug = $2
        WHERE w.slug = $1`,
      [place.workspace, place.project ?? null],
    )) as { workspace_id: string; project_id: string | null }[];
    if (!row || (place.project && !row.project_id)) throw new Error(`no such place: ${place.workspace}/${place.project ?? ''}`);
    await t.dataSource.query(
      'INSERT INTO memberships (id, user_id, workspace_id, project_id, role, created_at) VALUES ($1, $2, $3, $4, $5, now())',
      [randomUUID(), id, row.workspace_id, place.project ? row.project_id : null, place.role],
    );
  }
  const { token } = await t.app.get(ConsoleSessionsService).startForUser(id);
  const cookie = `${SESSION_COOKIE}=${token}`;
  return {
    id,
    email,
    cookie,
    headers: (project) => ({ Cookie: cookie, [CSRF_HEADER]: '1', ...(project ? { 'X-Parley-Project': project } : {}) }),
  };
}
