import { DataSource } from 'typeorm';

import { AuditLog } from '../../src/audit/audit-log';
import { ProviderCredentialsService } from '../../src/provider-credentials/provider-credentials.service';
import { DeploymentRequestsService } from '../../src/registry/deployments/deployment-requests.service';
import { DeploymentsService } from '../../src/registry/deployments/deployments.service';
import { PromptsController } from '../../src/registry/prompts/prompts.controller';
import { PromptsRepository } from '../../src/registry/prompts/prompts.repository';
import { PromptsService } from '../../src/registry/prompts/prompts.service';
import { VersionsRepository } from '../../src/registry/prompts/versions.repository';
import { VersionsService } from '../../src/registry/prompts/versions.service';
import { RegistryCache } from '../../src/registry-cache/registry-cache';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { expectResourceError } from './support/expect-errors';
import { KEYS, PROJECT_ID } from './support/fakes';

/**
 * POST /v2/prompts/{slug}/versions with a routing block (docs/routing.md, "The routing block"):
 * the real controller and VersionsService over in-memory stand-ins (a prompt, the project's
 * providers by name and type), no database. Every 400 body of the save-time checks: a target's
 * provider the project does not have, a target whose provider type cannot honour the version's
 * JSON answer, and a block that is not the contract; nothing is stored. The real conditions:
 * test/routing-config.e2e-spec.ts.
 */
const PATH = '/v2/prompts/support-reply/versions';
const TEMPLATE = [{ role: 'system', content: 'Answer {{question}}' }];
const PROVIDERS = new Map([
  ['gateway', 'openai'],
  ['claude', 'anthropic'],
]);

describe('controller tier: a version with a routing block', () => {
  let t: ControllerApp;
  const asked: string[] = [];
  const stored: unknown[] = [];
  // Any use fails the test; Nest's look for lifecycle hooks and promises (then) finds nothing.
  const untouched = {
    get: (_target: object, name: string | symbol) =>
      typeof name === 'symbol' || /^(on[A-Z]\w*|beforeApplicationShutdown|then)$/.test(name)
        ? undefined
        : () => Promise.reject(new Error(`not reached when a version is refused: ${name}`)),
  };

  beforeAll(async () => {
    t = await createControllerApp({
      controllers: [PromptsController],
      providers: [
        VersionsService,
        // One transaction, whose manager the stand-ins below never use.
        { provide: DataSource, useValue: { transaction: (work: (manager: object) => unknown) => work({}) } },
        {
          provide: PromptsService,
          useValue: { require: () => Promise.resolve({ id: 'p1', projectId: PROJECT_ID, slug: 'support-reply', kind: 'prompt' }) },
        },
        {
          provide: ProviderCredentialsService,
          useValue: {
            findByName: (projectId: string, name: string) => {
              asked.push(`${projectId}:${name}`);
              return Promise.resolve(PROVIDERS.has(name) ? { name, type: PROVIDERS.get(name) } : null);
            },
          },
        },
        {
          provide: VersionsRepository,
          useValue: { insert: (row: unknown) => (stored.push(row), Promise.reject(new Error('not stored'))) },
        },
        { provide: PromptsRepository, useValue: new Proxy({}, untouched) },
        { provide: AuditLog, useValue: new Proxy({}, untouched) },
        { provide: RegistryCache, useValue: new Proxy({}, untouched) },
        { provide: DeploymentsService, useValue: new Proxy({}, untouched) },
        { provide: DeploymentRequestsService, useValue: new Proxy({}, untouched) },
      ],
    });
  });
  afterAll(() => t.close());
  beforeEach(() => void asked.splice(0));

  const api = keyedApi(() => t, KEYS.full);

  it("400 naming each target whose provider the project does not have, asked in the caller's project only", async () => {
    const res = await api.post(PATH).send({
      template: TEMPLATE,
      routing: {
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini' },
          { provider: 'nope', model: 'm' },
        ],
      },
    });
    expectResourceError(res, 400, 'Invalid request body', [
      'routing.targets.1.provider: no provider "nope" in this project (use "local" or create a provider credential)',
    ]);
    expect(asked).toEqual([`${PROJECT_ID}:gateway`, `${PROJECT_ID}:nope`]);
    expect(stored).toEqual([]);
  });

  it('400 naming each target and the field it cannot honour, and where the field comes from', async () => {
    const res = await api.post(PATH).send({
      template: TEMPLATE,
      parameters: { response_format: { type: 'json_object' } },
      routing: {
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini' },
          { provider: 'claude', model: 'claude-sonnet' },
          { provider: 'local', model: 'echo', parameters: { temperature: 0.2 } },
          { provider: 'local', model: 'echo', parameters: { response_format: { type: 'text' } } },
        ],
      },
    });
    const remedy = "override it in this target's parameters, or route to another provider";
    expectResourceError(res, 400, 'Invalid request body', [
      `routing.targets.1: provider "claude" is of type anthropic, which cannot honour response_format "json_object" (from the version's parameters): ${remedy}`,
      `routing.targets.2: provider "local" is of type local, which cannot honour response_format "json_object" (from the version's parameters): ${remedy}`,
    ]);
    const own = await api.post(PATH).send({
      template: TEMPLATE,
      routing: {
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini' },
          { provider: 'claude', model: 'claude-sonnet', parameters: { response_format: { type: 'json_object' } } },
        ],
      },
    });
    expectResourceError(own, 400, 'Invalid request body', [
      `routing.targets.1: provider "claude" is of type anthropic, which cannot honour response_format "json_object" (from this target's parameters): ${remedy}`,
    ]);
    // The first target is the version's own provider and model: its settings are the version's parameters.
    const first = await api.post(PATH).send({
      template: TEMPLATE,
      routing: { targets: [{ provider: 'claude', model: 'claude-sonnet', parameters: { temperature: 0.2 } }] },
    });
    expectResourceError(first, 400, 'Invalid request body', [
      "routing.targets.0.parameters: the first target is the version's own provider and model: put its settings in the version's parameters",
    ]);
    expect(stored).toEqual([]);
  });

  it('400 from the body pipe for a block that is not the contract, before any provider is asked', async () => {
    const res = await api.post(PATH).send({
      template: TEMPLATE,
      routing: { strategy: 'fastest', targets: [{ provider: 'local', model: 'echo', weight: 2 }], fallbackOn: ['teapot'] },
    });
    // The pipe's one line for the field, its problems joined (MatchesSchema).
    expectResourceError(res, 400, 'Invalid request body', [
      'routing.strategy: Invalid option: expected one of "priority"|"weighted"|"least-latency"; ' +
        'routing.fallbackOn.0: Invalid option: expected one of "rate_limit"|"server_error"|"timeout"|"connection"|"first_token_timeout"',
    ]);
    expect(asked).toEqual([]);
  });
});
