import type { Response } from 'supertest';

import { InstanceAuditLog } from '../../src/audit/instance-audit-log';
import { ScimDiscoveryController, ScimFallbackController } from '../../src/scim/scim-discovery.controller';
import { ScimGroupsController } from '../../src/scim/scim-groups.controller';
import { ScimGroupsRepository } from '../../src/scim/scim-groups.repository';
import { ScimGroupsService } from '../../src/scim/scim-groups.service';
import { ScimTokenGuard } from '../../src/scim/scim-http';
import { ScimSessions } from '../../src/scim/scim-sessions';
import { ScimTokensService } from '../../src/scim/scim-tokens.service';
import { ScimUsersController } from '../../src/scim/scim-users.controller';
import { ScimUsersRepository } from '../../src/scim/scim-users.repository';
import { ScimUsersService } from '../../src/scim/scim-users.service';
import { ControllerApp, createControllerApp } from './support/controller-app';
import { KEYS, UNKNOWN_UUID } from './support/fakes';

/**
 * The SCIM surface (docs/security.md, "SCIM") with the app's edge (configureApp, the global guard,
 * pipe and filter) and its own guard, filter and services, over an in-memory token check and
 * directories that hold nothing: every refusal an identity provider can get before anything is
 * stored, in RFC 7644's error shape, with no database. What stored state produces (another
 * workspace's ids, uniqueness, a revoked token, what changes): test/scim.e2e-spec.ts.
 */
const TOKEN = 'pscim_controller-tier-token';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const nothingStored = () => {
  throw new Error('The controller tier stores nothing: this refusal should have come first');
};

function expectScimError(res: Response, status: number, scimType: string | undefined, detail: string | RegExp): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}), detail: expect.stringMatching(detail) },
  });
  expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
}

const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

describe('controller tier: SCIM', () => {
  let t: ControllerApp;

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [ScimDiscoveryController, ScimUsersController, ScimGroupsController, ScimFallbackController],
      providers: [
        ScimTokenGuard,
        ScimUsersService,
        ScimGroupsService,
        {
          provide: ScimTokensService,
          useValue: {
            authenticate: async (secret: string) =>
              secret === TOKEN ? { tokenId: UNKNOWN_UUID, tokenName: 'okta', workspaceId: UNKNOWN_UUID } : null,
          },
        },
        { provide: ScimUsersRepository, useValue: { find: async () => null, list: async () => ({ rows: [], total: 0 }) } },
        { provide: ScimGroupsRepository, useValue: { find: async () => null } },
        { provide: InstanceAuditLog, useValue: { record: nothingStored } },
        { provide: ScimSessions, useValue: { endWhereRoleless: nothingStored } },
      ],
    });
  });
  afterAll(() => t.close());

  const scim = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: unknown) => {
    const req = t.http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${TOKEN}`);
    if (body === undefined) return req;
    return req.set('Content-Type', 'application/scim+json').send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const patchOp = (...operations: unknown[]) => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations });

  it('401 without a SCIM token: none, an unknown one, an API key (as a bearer or in X-API-Key), Basic', async () => {
    for (const headers of [
      {},
      { Authorization: 'Bearer pscim_unknown' },
      { Authorization: `Bearer ${KEYS.full}` },
      { 'X-API-Key': KEYS.admin },
      { Authorization: 'Basic b2t0YTpzZWNyZXQ=' },
    ]) {
      const res = await t.http().get('/scim/v2/Users').set(headers);
      expectScimError(res, 401, undefined, /bearer token|Authorization: Bearer/);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="scim"');
    }
  });

  it("locates resources under the request's own origin without PUBLIC_URL, behind a trusted proxy's forwarded one", async () => {
    const direct = await scim('get', '/ServiceProviderConfig').expect(200);
    expect(direct.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(direct.body.meta.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/scim\/v2\/ServiceProviderConfig$/);
    const proxied = await scim('get', '/ResourceTypes')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'parley.example.com')
      .expect(200);
    expect(proxied.body.Resources[0].meta.location).toBe('https://parley.example.com/scim/v2/ResourceTypes/User');
  });

  it('404 for a path or method SCIM does not serve, and for an id the directory does not have', async () => {
    expectScimError(await scim('get', '/Bulk'), 404, undefined, /^No such SCIM endpoint/);
    expectScimError(await scim('post', '/Users/x/y', {}), 404, undefined, /^No such SCIM endpoint/);
    expectScimError(await scim('get', '/Me'), 404, undefined, /^No such SCIM endpoint/);
    expectScimError(await scim('get', `/Users/${UNKNOWN_UUID}`), 404, undefined, exactly(`User ${UNKNOWN_UUID} not found`));
    expectScimError(await scim('get', '/Groups/not-an-id'), 404, undefined, exactly('Group not-an-id not found'));
    expectScimError(await scim('get', '/Schemas/urn:nope'), 404, undefined, exactly('Schema urn:nope not found'));
  });

  it('413 for a body over BODY_LIMIT, refused before routing, in SCIM’s shape', async () => {
    const res = await scim('post', '/Users', { userName: 'a@b.c', displayName: 'x'.repeat(1024 * 1024 + 1) });
    expectScimError(res, 413, undefined, exactly('Request body is larger than 1mb'));
  });

  it.each([
    ['POST /Users', 'post', '/Users'],
    ['PUT /Users/{id}', 'put', `/Users/${UNKNOWN_UUID}`],
  ] as const)('%s: 400 for a body that is no user', async (_name, method, path) => {
    const cases: [unknown, string, string][] = [
      ['{"userName": ', 'invalidSyntax', 'Invalid body: the body is not valid JSON'],
      ['[]', 'invalidSyntax', 'Invalid body: a JSON object is expected'],
      ['"ada@example.com"', 'invalidSyntax', 'Invalid body: a JSON object is expected'],
      [{ name: { givenName: 'Ada' } }, 'invalidValue', 'userName is required'],
      [{ userName: ['ada@example.com'] }, 'invalidValue', 'userName must be a string'],
      [{ userName: 'ada@example.com', active: 'sometimes' }, 'invalidValue', 'active must be true or false'],
      [{ userName: 'ada@example.com', emails: [{ value: 'nope' }] }, 'invalidValue', 'emails[0].value is not an e-mail address'],
      [{ userName: 'ada@example.com', externalId: 'x'.repeat(256) }, 'invalidValue', 'externalId is longer than 255 characters'],
    ];
    for (const [body, scimType, detail] of cases) expectScimError(await scim(method, path, body), 400, scimType, exactly(detail));
  });

  it('POST /Users: 400 when no e-mail can be found for the person', async () => {
    expectScimError(
      await scim('post', '/Users', { userName: 'ada' }),
      400,
      'invalidValue',
      exactly('userName must be an e-mail address, or emails must hold one'),
    );
  });

  it('PATCH /Users/{id}: 400 for an operation or path SCIM does not allow, before the user is looked up', async () => {
    const cases: [unknown, string, string][] = [
      [{ schemas: [] }, 'invalidValue', 'Operations must be a non-empty array'],
      [patchOp({ op: 'copy', path: 'active', value: true }), 'invalidSyntax', 'Operations[0].op must be add, replace or remove'],
      [patchOp({ op: 'remove' }), 'noTarget', 'Operations[0]: a remove needs a path'],
      [patchOp({ op: 'replace', path: 'shoeSize', value: 44 }), 'invalidPath', 'User has no attribute "shoesize"'],
      [
        patchOp({ op: 'replace', path: 'emails[type eq "work"', value: 'x@y' }),
        'invalidPath',
        'Invalid path "emails[type eq \\"work\\"": ends where "]" or "and" was expected',
      ],
      [
        patchOp({ op: 'replace', path: 'emails[type co "work"].value', value: 'x@y' }),
        'invalidPath',
        'Invalid path "emails[type co \\"work\\"].value": the operator "co" is not supported (only eq)',
      ],
      [patchOp({ op: 'replace', path: 'meta', value: {} }), 'mutability', 'meta cannot be changed'],
      [patchOp({ op: 'Replace', path: 'active', value: 'Nope' }), 'invalidValue', 'active must be true or false'],
      [patchOp({ op: 'remove', path: 'userName' }), 'invalidValue', 'userName is required'],
    ];
    for (const [body, scimType, detail] of cases) {
      expectScimError(await scim('patch', `/Users/${UNKNOWN_UUID}`, body), 400, scimType, exactly(detail));
    }
  });

  it('GET /Users and /Groups: 400 for a filter or page SCIM does not support', async () => {
    const list = (resource: string, query: string) => scim('get', `/${resource}?${query}`);
    const filter = (text: string) => `filter=${encodeURIComponent(text)}`;
    expectScimError(
      await list('Users', filter('userName sw "a"')),
      400,
      'invalidFilter',
      exactly('Invalid filter: the operator "sw" is not supported (only eq)'),
    );
    expectScimError(
      await list('Users', filter('userName eq "a" or externalId eq "b"')),
      400,
      'invalidFilter',
      exactly('Invalid filter: "or" is not supported (only and)'),
    );
    expectScimError(
      await list('Users', filter('nickName eq "a"')),
      400,
      'invalidFilter',
      exactly('Invalid filter: filtering Users on "nickname" is not supported (userName, externalId, id, emails.value, emails.type)'),
    );
    expectScimError(
      await list('Users', filter('userName eq true')),
      400,
      'invalidFilter',
      exactly('Invalid filter: username compares with a string'),
    );
    expectScimError(await list('Users', 'count=ten'), 400, 'invalidValue', exactly('count must be an integer'));
    expectScimError(await list('Users', 'startIndex=1&startIndex=2'), 400, 'invalidValue', exactly('startIndex must be given once'));
    expectScimError(
      await list('Groups', filter('displayName eq "a" and (x eq "b")')),
      400,
      'invalidFilter',
      exactly('Invalid filter: parentheses are not supported'),
    );
    // Entra encodes the spaces of a filter as "+".
    const empty = await list('Users', 'filter=userName+eq+%22a%40b.c%22').expect(200);
    expect(empty.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
  });

  it('POST, PUT and PATCH /Groups: 400 for a body or operation that is no group change', async () => {
    expectScimError(await scim('post', '/Groups', { members: [] }), 400, 'invalidValue', exactly('displayName is required'));
    expectScimError(
      await scim('post', '/Groups', { displayName: 'Eng', members: [{ value: 'ada' }] }),
      400,
      'invalidValue',
      exactly('members[0].value: no user "ada" in this directory'),
    );
    expectScimError(
      await scim('put', `/Groups/${UNKNOWN_UUID}`, '{'),
      400,
      'invalidSyntax',
      exactly('Invalid body: the body is not valid JSON'),
    );
    expectScimError(
      await scim('patch', `/Groups/${UNKNOWN_UUID}`, patchOp({ op: 'add', path: `members[value eq "${UNKNOWN_UUID}"]`, value: [] })),
      400,
      'invalidPath',
      exactly('A members filter is only for remove'),
    );
    expectScimError(
      await scim('patch', `/Groups/${UNKNOWN_UUID}`, patchOp({ op: 'replace', path: 'owner', value: 'x' })),
      400,
      'invalidPath',
      exactly('Group has no attribute "owner"'),
    );
  });
});
