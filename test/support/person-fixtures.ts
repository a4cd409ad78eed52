import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { Role } from '../../src/auth/roles';
import { uniqueSlug } from './factories';
import { signedInPerson } from './people-fixtures';

export interface Person {
  id: string;
  email: string;
  /** The session cookie's value (`parley_session`). */
  token: string;
  /** What the console sends: the session cookie, the project it works in, and the CSRF header (needed on POST, PUT, DELETE). */
  headers: Record<string, string>;
}

/** A person with `role` in one project, signed in (test/support/people-fixtures.ts), with that project's headers. */
export async function addPerson(
  app: INestApplication,
  project: { workspace: string; project: string; projectId: string },
  role: Role,
  name: string = role,
): Promise<Person> {
  const email = `${uniqueSlug(name)}@example.com`;
  const person = await signedInPerson({ app, dataSource: app.get(DataSource) }, email, [
    { workspace: project.workspace, project: project.project, role },
  ]);
  return {
    id: person.id,
    email,
    token: person.cookie.slice(person.cookie.indexOf('=') + 1),
    headers: { Cookie: person.cookie, 'X-Parley-Project': `${project.workspace}/${project.project}`, 'X-Parley-CSRF': '1' },
  };
}
