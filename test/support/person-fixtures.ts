import { randomUUID } from 'node:crypto';

import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { Role } from '../../src/auth/roles';
import { ConsoleSessionsService } from '../../src/console/console-sessions.service';
import { uniqueSlug } from './factories';

export interface Person {
  id: string;
  email: string;
  /** The session cookie's value (`parley_session`). */
  token: string;
  /** What the console sends: the session cookie, the project it works in, and the CSRF header (needed on POST, PUT, DELETE). */
  headers: Record<string, string>;
}

/**
 * A person with `role` in one project, as a fixture: the user and the membership inserted with SQL
 * (until the members API exists), and a console session started for them through the app's own
 * ConsoleSessionsService.startForUser, as the OpenID Connect callback starts one.
 */
export async function addPerson(
  app: INestApplication,
  project: { workspace: string; project: string; projectId: string },
  role: Role,
  name: string = role,
): Promise<Person> {
  const dataSource = app.get(DataSource);
  const id = randomUUID();
  const email = `${uniqueSlug(name)}@example.com`;
  await dataSource.query('INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, $3, now())', [id, email, name]);
  await dataSource.query(
    `INSERT INTO memberships (id, user_id, workspace_id, project_id, role, created_at)
     SELECT $1, $2, workspace_id, id, $4, now() FROM projects WHERE id = $3`,
    [randomUUID(), id, project.projectId, role],
  );
  const { token } = await app.get(ConsoleSessionsService).startForUser(id);
  return {
    id,
    email,
    token,
    headers: { Cookie: `parley_session=${token}`, 'X-Parley-Project': `${project.workspace}/${project.project}`, 'X-Parley-CSRF': '1' },
  };
}
