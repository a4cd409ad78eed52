import { AuditTrailController } from '../../src/audit-trail/audit-trail.controller';
import type { AuditQuery } from '../../src/audit-trail/audit-trail.dto';
import { AuditTrailService } from '../../src/audit-trail/audit-trail.service';
import { InstanceAuditTrailController } from '../../src/audit-trail/instance-audit-trail.controller';
import type { InstanceAuditQuery } from '../../src/audit-trail/instance-audit-trail.dto';
import { InstanceAuditTrailService } from '../../src/audit-trail/instance-audit-trail.service';
import { AdminPrincipal, INSTANCE_ADMIN, Principal } from '../../src/auth/principal';
import { SCOPES } from '../../src/auth/scopes';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { FakeApiKeys, KEYS, UNKNOWN_UUID, WORKSPACE } from './support/fakes';

/**
 * The audit trails' routes (docs/security.md, "Audit trail") with the app's guard, pipe and filter
 * over in-memory services: who may call them, and every 400 of their queries, refused before the
 * service. The real conditions (a person's events, a workspace admin's reach, paging, the
 * transaction): test/audit-people.e2e-spec.ts, test/audit.e2e-spec.ts.
 */
const AUDIT_KEYS = {
  /** An instance admin key without audit:read. */
  adminWithoutAudit: 'ck-controller-admin-no-audit-01',
  /** A workspace admin key of `acme`. */
  workspaceAdmin: 'ck-controller-ws-admin-0123456',
} as const;

class AuditApiKeys extends FakeApiKeys {
  private readonly extra = new Map<string, Principal>([
    [AUDIT_KEYS.adminWithoutAudit, { ...INSTANCE_ADMIN(null, 'no audit'), scopes: SCOPES.filter((s) => s !== 'audit:read') }],
    [
      AUDIT_KEYS.workspaceAdmin,
      {
        ...INSTANCE_ADMIN('01990000-0000-7000-8000-00000000c001', 'acme admin'),
        workspaceId: '01990000-0000-7000-8000-00000000b001',
        workspaceSlug: WORKSPACE,
      } satisfies AdminPrincipal,
    ],
  ]);

  override async resolve(secret: string): Promise<Principal | null> {
    return this.extra.get(secret) ?? super.resolve(secret);
  }
}

const EMPTY_PAGE = { object: 'list' as const, data: [], has_more: false, first_id: null, last_id: null };

class FakeTrail {
  readonly calls: unknown[] = [];
  async list(...args: unknown[]) {
    this.calls.push(args);
    return EMPTY_PAGE;
  }
}

const EMAIL_RULE = 'actorEmail must be an e-mail address of at most 320 characters';
const RESOURCE_TYPES = 'workspace, project, admin_key, member, group_role, user, sign_in, scim_token, scim_user, scim_group';

describe('controller tier: audit trails', () => {
  let t: ControllerApp;
  const project = new FakeTrail();
  const instance = new FakeTrail();

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [AuditTrailController, InstanceAuditTrailController],
      providers: [
        { provide: AuditTrailService, useValue: project },
        { provide: InstanceAuditTrailService, useValue: instance },
      ],
      keys: new AuditApiKeys(),
    });
  });
  afterAll(() => t.close());
  beforeEach(() => {
    project.calls.splice(0);
    instance.calls.splice(0);
  });

  const asProject = keyedApi(() => t, KEYS.full);
  const asAdmin = keyedApi(() => t, KEYS.admin);

  describe('GET /v2/audit', () => {
    it('401 without a key; 403 without audit:read, and for the admin key without X-Parley-Project', async () => {
      expectInvalidApiKey(await t.http().get('/v2/audit'));
      expectErrorAnswer(await keyedApi(() => t, KEYS.logsOnly).get('/v2/audit'), 403, {
        error: 'Forbidden',
        message: 'This API key lacks the scope this endpoint needs: audit:read',
      });
      expectErrorAnswer(await asAdmin.get('/v2/audit'), 403, { error: 'Forbidden', message: 'This endpoint needs a project API key' });
      expect(project.calls).toEqual([]);
    });

    it.each([
      ['actorUserId=ada', ['actorUserId must be a UUID']],
      ['actorEmail=ada', [EMAIL_RULE]],
      ['actorEmail=ada%20lovelace@example.com', [EMAIL_RULE]],
      ['actorEmail=ada@example@com', [EMAIL_RULE]],
      ['actorEmail=ada@example.com%00', ['actorEmail: must not contain U+0000', EMAIL_RULE]],
      [`actorEmail=${'a'.repeat(309)}@example.com`, [EMAIL_RULE]],
      ['actorEmail=a@example.com&actorEmail=b@example.com', [EMAIL_RULE]],
      ['actorKeyId=key', ['actorKeyId must be a UUID']],
      ['action=created', ['action must look like "provider.updated"']],
      ['limit=0', ['limit must be an integer from 1 to 100']],
    ])('400 "Invalid request parameters" for ?%s, before the service', async (query, details) => {
      expectResourceError(await asProject.get(`/v2/audit?${query}`), 400, 'Invalid request parameters', details);
      expect(project.calls).toEqual([]);
    });

    it("passes a person's filters on to the service", async () => {
      const res = await asProject.get(`/v2/audit?actorUserId=${UNKNOWN_UUID}&actorEmail=Ada@Example.com`);
      expect([res.status, res.body]).toEqual([200, EMPTY_PAGE]);
      const [[, query]] = project.calls as [[unknown, AuditQuery]];
      expect(query).toMatchObject({ actorUserId: UNKNOWN_UUID, actorEmail: 'Ada@Example.com' });
    });
  });

  describe('GET /v2/admin/audit', () => {
    it('401 without a key; 403 for a project key, and for an admin key without audit:read', async () => {
      expectInvalidApiKey(await t.http().get('/v2/admin/audit'));
      expectInvalidApiKey(await t.http().get('/v2/admin/audit').set('X-API-Key', 'ck-no-such-key'));
      expectErrorAnswer(await asProject.get('/v2/admin/audit'), 403, {
        error: 'Forbidden',
        message: 'This endpoint needs the admin API key',
      });
      expectErrorAnswer(await keyedApi(() => t, AUDIT_KEYS.adminWithoutAudit).get('/v2/admin/audit'), 403, {
        error: 'Forbidden',
        message: 'This API key lacks the scope this endpoint needs: audit:read',
      });
      expect(instance.calls).toEqual([]);
    });

    it.each([
      ['workspace=Acme', ['workspace must be a workspace slug']],
      ['workspace=', ['workspace must be a workspace slug']],
      ['action=workspace', ['action must look like "workspace.created"']],
      ['action=a.b&action=c.d', ['action must look like "workspace.created"']],
      ['resourceType=prompt', [`resourceType must be one of the following values: ${RESOURCE_TYPES}`]],
      ['actorUserId=someone', ['actorUserId must be a UUID']],
      ['actorEmail=someone', [EMAIL_RULE]],
      [`actorEmail=${'a'.repeat(309)}@example.com`, [EMAIL_RULE]],
      ['since=yesterday', ['since must be an ISO 8601 date-time']],
      ['until=2026-13-01', ['until must be an ISO 8601 date-time']],
      ['limit=101', ['limit must be an integer from 1 to 100']],
    ])('400 "Invalid request parameters" for ?%s, before the service', async (query, details) => {
      expectResourceError(await asAdmin.get(`/v2/admin/audit?${query}`), 400, 'Invalid request parameters', details);
      expect(instance.calls).toEqual([]);
    });

    it('passes the caller (the instance admin, or a workspace admin key) and the filters on to the service', async () => {
      const query = `workspace=${WORKSPACE}&action=workspace.created&resourceType=workspace&actorEmail=Ada@Example.com&since=2026-01-01T00:00:00Z&until=2026-02-01&limit=5`;
      expect((await asAdmin.get(`/v2/admin/audit?${query}`)).body).toEqual(EMPTY_PAGE);
      expect((await keyedApi(() => t, AUDIT_KEYS.workspaceAdmin).get('/v2/admin/audit')).status).toBe(200);
      const [[instanceAdmin, filters], [workspaceAdmin]] = instance.calls as [[Principal, InstanceAuditQuery], [Principal]];
      expect([instanceAdmin.workspaceId, workspaceAdmin.workspaceSlug]).toEqual([null, WORKSPACE]);
      expect(filters).toMatchObject({ workspace: WORKSPACE, action: 'workspace.created', actorEmail: 'Ada@Example.com', limit: '5' });
    });
  });
});
