import { randomUUID } from 'node:crypto';

import { parse } from 'yaml';

import { ConsoleSessionsService } from '../src/console/console-sessions.service';
import { uniqueSlug } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * parley.yaml's `access:` block (docs/apply.md, "Access"; issue 44 item 2): the project's group
 * roles and memberships, reviewed as code. Apply makes the rows it owns exactly the file's; rows
 * given through the API stay; export writes the block back and applying it changes nothing; a key
 * without members:manage is refused the block.
 */
describe('parley.yaml: access (apply and export)', () => {
  let t: TestApp;
  let workspace: string;
  let projectId: string;
  let workspaceId: string;
  const suffix = randomUUID().slice(0, 8);
  const ana = `Ana.${suffix}@example.com`;
  const bo = `bo.${suffix}@example.com`;
  const leads = `leads-${suffix}`;
  const support = `support team ${suffix}`;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const apply = (yaml: string, headers: Record<string, string> = admin) => t.http().post('/v2/apply').set(headers).send({ yaml });

  function file(access: string): string {
    return `
workspace: ${workspace}
project: support
prompts:
  - slug: reply
    model: echo
    template:
      - { role: system, content: "Be brief." }
${access}`;
  }
  const fullAccess = `
access:
  groups:
    ${leads}: deployer
    "${support}": viewer
  members:
    ${ana}: editor
    ${bo}: viewer
`;

  /** The project's own group roles and memberships, as stored. */
  async function rows() {
    const groups = await t.dataSource.query(
      'SELECT group_name, role, managed_by FROM group_roles WHERE project_id = $1 ORDER BY group_name',
      [projectId],
    );
    const members = await t.dataSource.query(
      `SELECT u.email, m.role, m.managed_by FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.project_id = $1 ORDER BY lower(u.email)`,
      [projectId],
    );
    return { groups, members };
  }
  const exportFile = async () => (await t.http().get(`/v2/export?workspace=${workspace}&project=support`).set(admin).expect(200)).text;

  beforeAll(async () => {
    t = await createTestApp();
    workspace = uniqueSlug('access');
  });
  afterAll(() => t.close());

  it('applies the block: group roles and memberships in the project, users made by address, each change audited', async () => {
    const first = await apply(file(fullAccess)).expect(200);
    expect(first.body.access).toEqual({
      groups: [
        { group: leads, role: 'deployer', action: 'created' },
        { group: support, role: 'viewer', action: 'created' },
      ],
      members: [
        { email: ana, role: 'editor', action: 'created' },
        { email: bo, role: 'viewer', action: 'created' },
      ],
    });
    [{ id: projectId, workspace_id: workspaceId }] = await t.dataSource.query(
      'SELECT p.id, p.workspace_id FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE w.slug = $1 AND p.slug = $2',
      [workspace, 'support'],
    );
    expect(await rows()).toEqual({
      groups: [
        { group_name: leads, role: 'deployer', managed_by: 'apply' },
        { group_name: support, role: 'viewer', managed_by: 'apply' },
      ],
      members: [
        { email: ana, role: 'editor', managed_by: 'apply' },
        { email: bo, role: 'viewer', managed_by: 'apply' },
      ],
    });
    const audited = await t.dataSource.query(
      `SELECT action, resource_type FROM instance_audit_events WHERE workspace_id = $1 AND resource_type IN ('member', 'group_role') ORDER BY id`,
      [workspaceId],
    );
    expect(audited.map((r: { action: string }) => r.action).sort()).toEqual([
      'group_role.set',
      'group_role.set',
      'member.added',
      'member.added',
    ]);

    // The role works: Ana, signed in, edits in this project.
    const [{ id: anaId }] = await t.dataSource.query('SELECT id FROM users WHERE lower(email) = lower($1)', [ana]);
    const { token } = await t.app.get(ConsoleSessionsService).startForUser(anaId);
    const ana$ = { Cookie: `parley_session=${token}`, 'X-Parley-CSRF': '1', 'X-Parley-Project': `${workspace}/support` };
    await t.http().post('/v2/prompts').set(ana$).send({ slug: 'by-ana', kind: 'prompt' }).expect(200);

    const again = await apply(file(fullAccess)).expect(200);
    expect(again.body.changed).toBe(false);
    expect(again.body.access.groups.map((g: { action: string }) => g.action)).toEqual(['unchanged', 'unchanged']);
  });

  it('exports the block; applying the export changes nothing', async () => {
    const exported = await exportFile();
    expect(parse(exported).access).toEqual({
      groups: { [leads]: 'deployer', [support]: 'viewer' },
      members: { [ana]: 'editor', [bo]: 'viewer' },
    });
    const before = await rows();
    const roundTrip = await apply(exported).expect(200);
    expect(roundTrip.body.changed).toBe(false);
    expect(await rows()).toEqual(before);
    // The API giving a row the file owns its same role again leaves it the file's.
    await t.http().put(`/v2/workspaces/${workspace}/projects/support/members/${ana}`).set(admin).send({ role: 'editor' }).expect(200);
    await t
      .http()
      .put(`/v2/workspaces/${workspace}/group-roles/${leads}`)
      .set(admin)
      .send({ role: 'deployer', project: 'support' })
      .expect(200);
    expect(await rows()).toEqual(before);
  });

  it("removes what the file stops listing, leaves the API's rows alone, and takes over an API row the file lists", async () => {
    const carl = `carl.${suffix}@example.com`;
    const projectMembers = `/v2/workspaces/${workspace}/projects/support/members`;
    await t.http().put(`${projectMembers}/${carl}`).set(admin).send({ role: 'viewer' }).expect(200);
    await t.http().put(`${projectMembers}/${bo}`).set(admin).send({ role: 'deployer' }).expect(200);
    await t
      .http()
      .put(`/v2/workspaces/${workspace}/group-roles/ops-${suffix}`)
      .set(admin)
      .send({ role: 'viewer', project: 'support' })
      .expect(200);

    const exported = await exportFile();
    expect(exported).toContain(
      '# note: access: 3 roles in this project were given through the API or the console, so not part of this file',
    );
    expect(parse(exported).access.members).toEqual({ [ana]: 'editor' });

    const narrowed = `
access:
  groups:
    ${leads}: editor
  members:
    ${carl}: editor
`;
    const res = await apply(file(narrowed)).expect(200);
    expect(res.body.access).toEqual({
      groups: [
        { group: leads, role: 'editor', action: 'updated' },
        { group: support, role: 'viewer', action: 'removed' },
      ],
      members: [
        { email: carl, role: 'editor', action: 'updated' },
        { email: ana, role: 'editor', action: 'removed' },
      ],
    });
    expect(res.body.changed).toBe(true);
    expect(await rows()).toEqual({
      groups: [
        { group_name: leads, role: 'editor', managed_by: 'apply' },
        { group_name: `ops-${suffix}`, role: 'viewer', managed_by: 'api' },
      ],
      members: [
        { email: bo, role: 'deployer', managed_by: 'api' },
        { email: carl, role: 'editor', managed_by: 'apply' },
      ],
    });
    // A file without the block leaves access as it is; an empty block removes every row apply owns.
    expect((await apply(file('')).expect(200)).body.access).toBeUndefined();
    await apply(file('access: {}')).expect(200);
    expect(await rows()).toEqual({
      groups: [{ group_name: `ops-${suffix}`, role: 'viewer', managed_by: 'api' }],
      members: [{ email: bo, role: 'deployer', managed_by: 'api' }],
    });
  });

  it('a key without members:manage is refused the block (403 naming the scope) and nothing changes; bad entries are 400s', async () => {
    const editor = (
      await t.http().post(`/v2/workspaces/${workspace}/projects/support/api-keys`).set(admin).send({ preset: 'editor' }).expect(200)
    ).body.key;
    const before = await rows();
    const refused = await apply(file(fullAccess), { 'X-API-Key': editor });
    expect([refused.status, refused.body]).toEqual([
      403,
      { error: 'Forbidden', message: 'Access in parley.yaml needs an API key with the members:manage scope' },
    ]);
    expect(await rows()).toEqual(before);
    // With members:manage but not every scope, it gives no role beyond its own.
    const manager = (
      await t
        .http()
        .post(`/v2/workspaces/${workspace}/projects/support/api-keys`)
        .set(admin)
        .send({ preset: 'editor', scopes: ['members:manage'] })
        .expect(200)
    ).body.key;
    const beyond = await apply(file(`access: { members: { ${ana}: admin } }`), { 'X-API-Key': manager });
    expect([beyond.status, beyond.body.message]).toEqual([
      403,
      'The admin role holds scopes this caller does not hold: providers:write, keys:manage',
    ]);
    expect(await rows()).toEqual(before);
    await apply(file(`access: { members: { ${ana}: deployer } }`), { 'X-API-Key': manager }).expect(200);
    expect((await rows()).members).toEqual([
      { email: ana, role: 'deployer', managed_by: 'apply' },
      { email: bo, role: 'deployer', managed_by: 'api' },
    ]);
    // Without the block, the same editor key applies as before.
    await apply(file(''), { 'X-API-Key': editor }).expect(200);

    // A key limited to some environments gives no role, which would reach every environment; nor through the members API.
    const limited = (
      await t
        .http()
        .post(`/v2/workspaces/${workspace}/projects/support/api-keys`)
        .set(admin)
        .send({ preset: 'full', environments: ['staging'] })
        .expect(200)
    ).body.key;
    const beforeLimited = await rows();
    const fromLimited = await apply(file(`access: { members: { ${ana}: viewer } }`), { 'X-API-Key': limited });
    expect([fromLimited.status, fromLimited.body.message]).toEqual([
      403,
      'A key limited to some environments (staging) cannot give roles: roles reach every environment',
    ]);
    const viaApi = await t
      .http()
      .put(`/v2/workspaces/${workspace}/projects/support/members/mallory@example.com`)
      .set('X-API-Key', limited)
      .send({ role: 'admin' });
    expect([viaApi.status, viaApi.body.message]).toEqual([
      403,
      'A key limited to some environments (staging) cannot give roles: roles reach every environment',
    ]);
    expect(await rows()).toEqual(beforeLimited);

    const bad = await apply(
      file(
        `access:\n  groups: { " padded": viewer, ok: owner }\n  members: { not-an-address: viewer, ${ana}: viewer, ${ana.toUpperCase()}: editor }\n  extra: 1`,
      ),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('Invalid apply file');
    expect(bad.body.error.details).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^access\.groups\. padded .*Expected a group name \(no leading or trailing spaces\)/),
        expect.stringMatching(/^access\.groups\.ok .*Expected a role: viewer, editor, deployer, admin/),
        expect.stringMatching(/^access\.members\.not-an-address .*Expected an e-mail address/),
        expect.stringMatching(/is the same: list it once/),
        expect.stringMatching(/^access .*Unrecognized key: "extra"/),
      ]),
    );
  });
});
