import { notFound } from '../../src/common/errors';
import { ProviderConnectionTests } from '../../src/provider-credentials/provider-connection-tests';
import type { ProviderTestResultDto } from '../../src/provider-credentials/provider-credential.dto';
import { ProviderCredentialsController } from '../../src/provider-credentials/provider-credentials.controller';
import { ProviderCredentialsService } from '../../src/provider-credentials/provider-credentials.service';
import type { DeleteProjectDto, ProjectDeletedDto } from '../../src/workspaces/dto/workspace.dto';
import { confirmationMismatch, ProjectDeletionService } from '../../src/workspaces/project-deletion.service';
import { WorkspacesController } from '../../src/workspaces/workspaces.controller';
import { WorkspacesService } from '../../src/workspaces/workspaces.service';
import { ControllerApp, createControllerApp } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { Failing, KEYS, PROJECT, PROJECT_ID, WORKSPACE } from './support/fakes';
import { MEMBER_KEYS, MemberApiKeys } from './support/members-fakes';

/**
 * The console's administration routes (docs/console.md, "Providers", "Workspaces and projects"):
 * POST /v2/provider-credentials/{name}/test and DELETE /v2/workspaces/{workspace}/projects/{project},
 * with the app's guard, pipe and filter over in-memory services: every error body, no database.
 * The real conditions (fake upstreams failing as providers do, a project's rows in every table,
 * its keys ending): test/provider-test-connection.e2e-spec.ts and test/project-deletion.e2e-spec.ts.
 */
const DELETE_PATH = `/v2/workspaces/${WORKSPACE}/projects/${PROJECT}`;
const CONFIRM = `${WORKSPACE}/${PROJECT}`;

/** The test in memory: `oai` fails as an unreachable provider does (a 200 saying so), anything else but `local` is not found. */
class FakeConnectionTests extends Failing implements Pick<ProviderConnectionTests, 'test'> {
  async test(_projectId: string, name: string): Promise<ProviderTestResultDto> {
    this.called('test');
    if (name !== 'oai' && name !== 'local') throw notFound('Provider credential not found');
    return name === 'local'
      ? {
          name,
          object: 'provider_credential.test',
          ok: true,
          status: null,
          latencyMs: 0,
          message: 'The built-in local provider calls nothing.',
        }
      : {
          name,
          object: 'provider_credential.test',
          ok: false,
          status: null,
          latencyMs: 3,
          message: 'Could not reach 10.0.0.1: connection refused',
        };
  }
}

/** The deletion in memory: acme/support-bot exists once; the confirmation is checked after the lookup, as the real one does. */
class FakeDeletion extends Failing implements Pick<ProjectDeletionService, 'delete'> {
  private gone = false;

  async delete(workspace: string, project: string, dto: DeleteProjectDto): Promise<ProjectDeletedDto> {
    this.called('delete');
    if (workspace !== WORKSPACE || project !== PROJECT || this.gone) throw notFound('Project not found');
    if (dto.confirm !== CONFIRM) throw confirmationMismatch(CONFIRM);
    this.gone = true;
    return { id: PROJECT_ID, workspace, slug: project, object: 'project.deleted', deleted: true, deletedRows: 12 };
  }
}

describe('controller tier: provider tests and project deletion', () => {
  let t: ControllerApp;
  const tests = new FakeConnectionTests();
  const deletion = new FakeDeletion();

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [WorkspacesController, ProviderCredentialsController],
      providers: [
        { provide: WorkspacesService, useValue: {} },
        { provide: ProjectDeletionService, useValue: deletion },
        { provide: ProviderCredentialsService, useValue: {} },
        { provide: ProviderConnectionTests, useValue: tests },
      ],
      keys: new MemberApiKeys(),
    });
  });
  afterAll(() => t.close());
  beforeEach(() => [tests, deletion].forEach((fake) => void fake.calls.splice(0)));

  describe('POST /v2/provider-credentials/{name}/test', () => {
    const test = (name: string, key?: string) => {
      const req = t.http().post(`/v2/provider-credentials/${name}/test`);
      return key ? req.set('X-API-Key', key) : req;
    };

    it('401 without a key or with an unknown one', async () => {
      expectInvalidApiKey(await test('oai'));
      expectInvalidApiKey(await test('oai', 'ck-no-such-key'));
      expect(tests.calls).toEqual([]);
    });

    it('403 for a key without providers:write and for the admin key outside a project, before the test', async () => {
      expectErrorAnswer(await test('oai', KEYS.logsOnly), 403, {
        error: 'Forbidden',
        message: 'This API key lacks the scope this endpoint needs: providers:write',
      });
      expectErrorAnswer(await test('oai', KEYS.admin), 403, { error: 'Forbidden', message: 'This endpoint needs a project API key' });
      expect(tests.calls).toEqual([]);
    });

    it('404 for a provider the project does not have; the admin key naming no project is 404 too', async () => {
      expectResourceError(await test('nope', KEYS.full), 404, 'Provider credential not found', null);
      expectResourceError(await test('oai', KEYS.admin).set('X-Parley-Project', 'acme/nope'), 404, 'Project not found', null);
    });

    it('a failing provider is a 200 with ok: false and the reason; local is ok; a malformed Idempotency-Key is 400', async () => {
      const failing = await test('oai', KEYS.full);
      expect({ status: failing.status, body: failing.body }).toEqual({
        status: 200,
        body: {
          name: 'oai',
          object: 'provider_credential.test',
          ok: false,
          status: null,
          latencyMs: 3,
          message: 'Could not reach 10.0.0.1: connection refused',
        },
      });
      expect((await test('local', KEYS.admin).set('X-Parley-Project', `${WORKSPACE}/${PROJECT}`)).body).toMatchObject({ ok: true });
      const bad = await test('oai', KEYS.full).set('Idempotency-Key', '');
      expect(bad.status).toBe(400);
    });

    it("an unexpected failure is the filter's 500, not a stack trace", async () => {
      tests.failNextWith(new Error('boom'));
      expectResourceError(await test('oai', KEYS.full), 500, 'Internal server error', null);
    });
  });

  describe('DELETE /v2/workspaces/{workspace}/projects/{project}', () => {
    const remove = (key: string | undefined, body?: unknown, path = DELETE_PATH) => {
      const req = t.http().delete(path);
      const keyed = key ? req.set('X-API-Key', key) : req;
      return body === undefined ? keyed : keyed.send(body as object);
    };

    it('401 without a key or with an unknown one', async () => {
      expectInvalidApiKey(await remove(undefined, { confirm: CONFIRM }));
      expectInvalidApiKey(await remove('ck-no-such-key', { confirm: CONFIRM }));
      expect(deletion.calls).toEqual([]);
    });

    it('403 for a project key; 404 for a workspace admin key of another workspace', async () => {
      expectErrorAnswer(await remove(KEYS.full, { confirm: CONFIRM }), 403, {
        error: 'Forbidden',
        message: 'This endpoint needs the admin API key',
      });
      expectResourceError(
        await remove(MEMBER_KEYS.workspaceAdmin, { confirm: 'other/p' }, '/v2/workspaces/other/projects/p'),
        404,
        'Workspace not found',
        null,
      );
      expect(deletion.calls).toEqual([]);
    });

    it('400 for a body without a confirmation string, before the service', async () => {
      for (const body of [undefined, {}, { confirm: 42 }, { confirm: CONFIRM, force: true }, [CONFIRM]]) {
        const res = await remove(KEYS.admin, body);
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe('Invalid request body');
      }
      expectResourceError(await remove(KEYS.admin, {}), 400, 'Invalid request body', [
        'confirm must be a string',
        'confirm must be shorter than or equal to 200 characters',
      ]);
      const malformed = await t
        .http()
        .delete(DELETE_PATH)
        .set('X-API-Key', KEYS.admin)
        .set('Content-Type', 'application/json')
        .send('{"confirm":');
      expect({ status: malformed.status, message: malformed.body.error.message }).toEqual({ status: 400, message: 'Invalid request body' });
      expect(deletion.calls).toEqual([]);
    });

    it('404 for a project that does not exist; 400 when the confirmation is not the project; 200 then 404', async () => {
      expectResourceError(
        await remove(KEYS.admin, { confirm: 'acme/nope' }, '/v2/workspaces/acme/projects/nope'),
        404,
        'Project not found',
        null,
      );
      expectResourceError(await remove(KEYS.admin, { confirm: PROJECT }), 400, 'Invalid request body', [
        `confirm: must be "${CONFIRM}", the workspace and project being deleted, typed in full`,
      ]);
      const deleted = await remove(MEMBER_KEYS.workspaceAdmin, { confirm: CONFIRM });
      expect({ status: deleted.status, body: deleted.body }).toEqual({
        status: 200,
        body: { id: PROJECT_ID, workspace: WORKSPACE, slug: PROJECT, object: 'project.deleted', deleted: true, deletedRows: 12 },
      });
      expectResourceError(await remove(KEYS.admin, { confirm: CONFIRM }), 404, 'Project not found', null);
    });
  });
});
