import { GroupRolesController } from '../../src/members/group-roles.controller';
import { GroupRolesService } from '../../src/members/group-roles.service';
import { InstanceAdminsController } from '../../src/members/instance-admins.controller';
import { InstanceAdminsService } from '../../src/members/instance-admins.service';
import { MembersController } from '../../src/members/members.controller';
import { MembersService } from '../../src/members/members.service';
import { ProjectMembersController } from '../../src/members/project-members.controller';
import { ControllerApp, createControllerApp } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { KEYS, UNKNOWN_UUID } from './support/fakes';
import { FakeGroupRoles, FakeInstanceAdmins, FakeMembers, KNOWN_USER, MEMBER_KEYS, MemberApiKeys, SOLO } from './support/members-fakes';

/**
 * The members API (docs/security.md, "Roles": members of a workspace and of a project, group roles,
 * instance admins) with the app's guard, pipe and filter over in-memory services
 * (support/members-fakes.ts) that apply the real rules of src/members/member-rules.ts: every error
 * body, with no database. The real conditions (unknown users, another workspace's, the last admin,
 * sessions ended): test/members.e2e-spec.ts.
 */
const WS = '/v2/workspaces/acme';
const PROJECT = `${WS}/projects/support-bot/members`;
const ROLE_RULE = 'role must be one of the following values: viewer, editor, deployer, admin';

type Method = 'get' | 'put' | 'delete';
const ENDPOINTS: { method: Method; path: string; body?: object; who: 'workspace' | 'project' | 'instance' }[] = [
  { method: 'get', path: `${WS}/members`, who: 'workspace' },
  { method: 'put', path: `${WS}/members/${KNOWN_USER.id}`, body: { role: 'viewer' }, who: 'workspace' },
  { method: 'delete', path: `${WS}/members/${KNOWN_USER.id}`, who: 'workspace' },
  { method: 'get', path: PROJECT, who: 'project' },
  { method: 'put', path: `${PROJECT}/${KNOWN_USER.email}`, body: { role: 'viewer' }, who: 'project' },
  { method: 'delete', path: `${PROJECT}/${KNOWN_USER.email}`, who: 'project' },
  { method: 'get', path: `${WS}/group-roles`, who: 'workspace' },
  { method: 'put', path: `${WS}/group-roles/support-leads`, body: { role: 'viewer' }, who: 'workspace' },
  { method: 'delete', path: `${WS}/group-roles/support-leads`, who: 'workspace' },
  { method: 'get', path: '/v2/admin/users', who: 'instance' },
  { method: 'put', path: `/v2/admin/users/${KNOWN_USER.id}/instance-admin`, who: 'instance' },
  { method: 'delete', path: `/v2/admin/users/${KNOWN_USER.id}/instance-admin`, who: 'instance' },
];

describe('controller tier: members and roles', () => {
  let t: ControllerApp;
  const members = new FakeMembers();
  const groupRoles = new FakeGroupRoles();
  const admins = new FakeInstanceAdmins();
  const calls = () => [...members.calls, ...groupRoles.calls, ...admins.calls];

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [MembersController, ProjectMembersController, GroupRolesController, InstanceAdminsController],
      providers: [
        { provide: MembersService, useValue: members },
        { provide: GroupRolesService, useValue: groupRoles },
        { provide: InstanceAdminsService, useValue: admins },
      ],
      keys: new MemberApiKeys(),
    });
  });
  afterAll(() => t.close());
  beforeEach(() => [members, groupRoles, admins].forEach((fake) => void fake.calls.splice(0)));

  const send = (method: Method, path: string, key: string, body?: object) => {
    const req = t.http()[method](path).set('X-API-Key', key);
    return body ? req.send(body) : req;
  };
  const forbiddenAnswer = (message: string) => ({ error: 'Forbidden', message });

  describe.each(ENDPOINTS.map((e) => [`${e.method.toUpperCase()} ${e.path}`, e] as const))('%s', (_name, endpoint) => {
    it('401 without a key or with an unknown one', async () => {
      expectInvalidApiKey(await t.http()[endpoint.method](endpoint.path));
      expectInvalidApiKey(await send(endpoint.method, endpoint.path, 'ck-no-such-key'));
      expect(calls()).toEqual([]);
    });

    it('403 for the callers it does not admit, before the service', async () => {
      if (endpoint.who === 'project') {
        expectErrorAnswer(
          await send(endpoint.method, endpoint.path, KEYS.logsOnly, endpoint.body),
          403,
          forbiddenAnswer('This API key lacks the scope this endpoint needs: members:manage'),
        );
      } else {
        expectErrorAnswer(
          await send(endpoint.method, endpoint.path, KEYS.full, endpoint.body),
          403,
          forbiddenAnswer(
            endpoint.who === 'instance' ? "This endpoint needs the instance's admin API key" : 'This endpoint needs the admin API key',
          ),
        );
      }
      if (endpoint.who === 'instance') {
        expectErrorAnswer(
          await send(endpoint.method, endpoint.path, MEMBER_KEYS.workspaceAdmin, endpoint.body),
          403,
          forbiddenAnswer("This endpoint needs the instance's admin API key"),
        );
      }
      expect(calls()).toEqual([]);
    });

    it('passes the admin key on to the service', async () => {
      const res = await send(endpoint.method, endpoint.path, KEYS.admin, endpoint.body);
      expect([res.status, calls().length]).toEqual([200, 1]);
    });
  });

  it("404 for another workspace (a workspace admin key: the guard's) or another project (a project key)", async () => {
    expectResourceError(await send('get', '/v2/workspaces/other/members', MEMBER_KEYS.workspaceAdmin), 404, 'Workspace not found', null);
    expectResourceError(
      await send('put', '/v2/workspaces/other/group-roles/x', MEMBER_KEYS.workspaceAdmin, { role: 'viewer' }),
      404,
      'Workspace not found',
      null,
    );
    expect(calls()).toEqual([]);
    expectResourceError(
      await send('get', '/v2/workspaces/acme/projects/other/members', MEMBER_KEYS.memberManager),
      404,
      'Project not found',
      null,
    );
    expectResourceError(await send('get', '/v2/workspaces/nope/members', KEYS.admin), 404, 'Workspace not found', null);
    expectResourceError(await send('put', `${WS}/members/${UNKNOWN_UUID}`, KEYS.admin, { role: 'viewer' }), 404, 'User not found', null);
    expectResourceError(await send('delete', `${WS}/members/nobody@example.com`, KEYS.admin), 404, 'Member not found', null);
    expectResourceError(await send('delete', `${WS}/group-roles/nobody`, KEYS.admin), 404, 'Group role not found', null);
    expectResourceError(await send('delete', `/v2/admin/users/${UNKNOWN_UUID}/instance-admin`, KEYS.admin), 404, 'User not found', null);
  });

  it.each([
    ['an unknown role', { role: 'owner' }, [ROLE_RULE]],
    ['no role', {}, [ROLE_RULE]],
    ['a field more', { role: 'viewer', scopes: [] }, ['scopes: unknown field']],
  ])('400 Invalid request body for %s, before the service', async (_label, body, details) => {
    for (const path of [`${WS}/members/${KNOWN_USER.email}`, `${PROJECT}/${KNOWN_USER.email}`, `${WS}/group-roles/support-leads`]) {
      expectResourceError(await send('put', path, KEYS.admin, body), 400, 'Invalid request body', details);
    }
    expect(calls()).toEqual([]);
  });

  it('400 for a malformed body, a user that is neither an id nor an address, a bad group, project or cursor', async () => {
    const raw = await t
      .http()
      .put(`${WS}/members/${KNOWN_USER.email}`)
      .set('X-API-Key', KEYS.admin)
      .set('Content-Type', 'application/json')
      .send('{"role":');
    expect([raw.status, raw.body.error.message]).toEqual([400, 'Invalid request body']);
    const array = await send('put', `${WS}/members/${KNOWN_USER.email}`, KEYS.admin, ['viewer']);
    expect([array.status, array.body.error.message]).toEqual([400, 'Invalid request body']);
    const user = ['user: expected a user id or an e-mail address'];
    expectResourceError(
      await send('put', `${WS}/members/not-a-user`, KEYS.admin, { role: 'viewer' }),
      400,
      'Invalid request parameters',
      user,
    );
    expectResourceError(await send('delete', `${PROJECT}/ana@`, KEYS.admin), 400, 'Invalid request parameters', user);
    expectResourceError(await send('put', '/v2/admin/users/12345/instance-admin', KEYS.admin), 400, 'Invalid request parameters', user);
    expectResourceError(
      await send('put', `${WS}/group-roles/%20padded`, KEYS.admin, { role: 'viewer' }),
      400,
      'Invalid request parameters',
      ['group: no leading or trailing spaces'],
    );
    expectResourceError(await send('put', `${WS}/group-roles/a%07b`, KEYS.admin, { role: 'viewer' }), 400, 'Invalid request parameters', [
      'group: control characters are not allowed',
    ]);
    expectResourceError(
      await send('put', `${WS}/group-roles/ops`, KEYS.admin, { role: 'viewer', project: 'Not A Slug' }),
      400,
      'Invalid request body',
    );
    expectResourceError(
      await send('delete', `${WS}/group-roles/ops?project=Not%20A%20Slug`, KEYS.admin),
      400,
      'Invalid request parameters',
    );
    expectResourceError(await send('get', `${WS}/members?limit=0`, KEYS.admin), 400, 'Invalid request parameters', [
      'limit must be an integer from 1 to 100',
    ]);
  });

  it('403 for a role holding scopes the caller does not hold', async () => {
    expectErrorAnswer(
      await send('put', `${PROJECT}/${KNOWN_USER.email}`, MEMBER_KEYS.memberManager, { role: 'editor' }),
      403,
      forbiddenAnswer('The editor role holds scopes this caller does not hold: invoke, threads:write, feedback:write, registry:write'),
    );
    const viewer = await send('put', `${PROJECT}/${KNOWN_USER.email}`, MEMBER_KEYS.memberManager, { role: 'viewer' });
    expect(viewer.status).toBe(200);
  });

  it('409 for a person stepping down as the last admin', async () => {
    expectResourceError(
      await send('put', `${WS}/members/${SOLO}`, KEYS.admin, { role: 'editor' }),
      409,
      'You are the only admin of workspace "acme": make someone else its admin before you give up the role',
      null,
    );
    expectResourceError(
      await send('delete', `/v2/admin/users/${SOLO}/instance-admin`, KEYS.admin),
      409,
      'You are the only instance admin: make someone else one before you give up the role',
      null,
    );
  });
});
