import request from 'supertest';

import { newId } from '../../src/common/ids';
import { ConsoleSessionsService } from '../../src/console/console-sessions.service';
import { TEST_ADMIN_KEY, TestApp } from './test-app';

export const SCIM_JSON = 'application/scim+json';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

type Http = () => ReturnType<typeof request>;

/**
 * An identity provider's SCIM client: plain HTTP with `Authorization: Bearer <token>` and
 * `application/scim+json` bodies, as Okta and Entra send them.
 */
export function scimClient(http: Http, token: string) {
  const auth = { Authorization: `Bearer ${token}`, Accept: SCIM_JSON };
  const withBody = (method: 'post' | 'put' | 'patch', path: string, body: unknown) =>
    http()
      [method](`/scim/v2${path}`)
      .set(auth)
      .set('Content-Type', SCIM_JSON)
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  return {
    get: (path: string) => http().get(`/scim/v2${path}`).set(auth),
    post: (path: string, body: unknown) => withBody('post', path, body),
    put: (path: string, body: unknown) => withBody('put', path, body),
    patch: (path: string, body: unknown) => withBody('patch', path, body),
    delete: (path: string) => http().delete(`/scim/v2${path}`).set(auth),
  };
}

export type ScimClient = ReturnType<typeof scimClient>;

/** A SCIM token of the workspace, made through the admin API with the instance's admin key. */
export async function createScimToken(http: Http, workspace: string, name = 'okta'): Promise<{ id: string; token: string }> {
  const res = await http().post(`/v2/workspaces/${workspace}/scim-tokens`).set('X-API-Key', TEST_ADMIN_KEY).send({ name }).expect(200);
  return { id: res.body.id, token: res.body.token };
}

/** Okta's create body for a person. */
export const oktaUser = (email: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName: email,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ primary: true, value: email, type: 'work' }],
  displayName: 'Ada Lovelace',
  locale: 'en-US',
  externalId: `okta-${email}`,
  groups: [],
  password: 'never-stored-1!',
  active: true,
  ...extra,
});

export const patchOp = (...operations: unknown[]) => ({ schemas: [PATCH_OP], Operations: operations });

/**
 * Fixture: a group role, as the members API or parley.yaml (another part of issue 44) would write
 * it: everyone in the group named `groupName` gets `role` in the whole workspace.
 */
export async function insertGroupRole(t: TestApp, workspaceId: string, groupName: string, role: string): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO group_roles (id, workspace_id, project_id, group_name, role, created_at) VALUES ($1, $2, NULL, $3, $4, now())`,
    [newId(), workspaceId, groupName, role],
  );
}

/** Fixture: a direct membership, as the members API would write it. */
export async function insertMembership(t: TestApp, userId: string, workspaceId: string, role: string): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO memberships (id, user_id, workspace_id, project_id, role, created_at) VALUES ($1, $2, $3, NULL, $4, now())`,
    [newId(), userId, workspaceId, role],
  );
}

/** Fixture: a console session of the person, as the OIDC sign-in makes it (ConsoleSessionsService.startForUser). */
export async function personSession(t: TestApp, userId: string): Promise<string> {
  const { token } = await t.app.get(ConsoleSessionsService).startForUser(userId);
  return `parley_session=${token}`;
}

/** What the person's session gets on a project route of `workspace/project`: 200, 401 (no session any more) or 404 (no role there). */
export async function projectStatus(http: Http, cookie: string, workspace: string, project: string): Promise<number> {
  return (await http().get('/v2/threads').set('Cookie', cookie).set('X-Parley-Project', `${workspace}/${project}`)).status;
}

export async function workspaceIdOf(t: TestApp, slug: string): Promise<string> {
  return (await t.dataSource.query('SELECT id FROM workspaces WHERE slug = $1', [slug]))[0].id;
}
