import { Principal } from '../../src/auth/principal';
import { ProviderParametersController } from '../../src/registry/parameters/provider-parameters.controller';
import { ControllerApp, createControllerApp } from './support/controller-app';
import { expectErrorAnswer, expectInvalidApiKey } from './support/expect-errors';
import { FakeApiKeys, KEYS, PROJECT, projectPrincipal, WORKSPACE } from './support/fakes';

/**
 * GET /v2/providers/parameters (docs/console.md, "Playground") with the app's guard, pipe and
 * filter and the real controller: 401, the 403s, and the catalogue read from the parameter schema.
 * Nothing in it is stored: the e2e tier (test/provider-parameters.e2e-spec.ts) checks the same
 * answer through a whole app, on both engines.
 */
const PATH = '/v2/providers/parameters';
const PROVIDERS_READER = 'ck-controller-providers-read-01';

class ParameterApiKeys extends FakeApiKeys {
  private readonly reader = projectPrincipal(['providers:read']);

  override async resolve(secret: string): Promise<Principal | null> {
    return secret === PROVIDERS_READER ? this.reader : super.resolve(secret);
  }
}

describe('controller tier: provider parameters', () => {
  let t: ControllerApp;

  beforeAll(async () => {
    t = await createControllerApp({ controllers: [ProviderParametersController], keys: new ParameterApiKeys() });
  });
  afterAll(() => t.close());

  it('401 without a key or with an unknown one', async () => {
    expectInvalidApiKey(await t.http().get(PATH));
    expectInvalidApiKey(await t.http().get(PATH).set('X-API-Key', 'ck-no-such-key'));
  });

  it('403 for a key holding neither registry:read nor providers:read, and for the admin key without X-Parley-Project', async () => {
    for (const key of [KEYS.logsOnly, KEYS.readOnly])
      expectErrorAnswer(await t.http().get(PATH).set('X-API-Key', key), 403, {
        error: 'Forbidden',
        message: 'This API key lacks the scope this endpoint needs: registry:read or providers:read',
      });
    expectErrorAnswer(await t.http().get(PATH).set('X-API-Key', KEYS.admin), 403, {
      error: 'Forbidden',
      message: 'This endpoint needs a project API key',
    });
  });

  it('404 for the admin key acting in a project that does not exist', async () => {
    const res = await t.http().get(PATH).set('X-API-Key', KEYS.admin).set('X-Parley-Project', 'acme/no-such-project');
    expectErrorAnswer(res, 404, { error: { message: 'Project not found' } });
  });

  it('200 for a key holding providers:read alone, for a full key and for the admin key in a project: each provider type and its parameters', async () => {
    const answers = [
      await t.http().get(PATH).set('X-API-Key', PROVIDERS_READER),
      await t.http().get(PATH).set('X-API-Key', KEYS.full),
      await t.http().get(PATH).set('X-API-Key', KEYS.admin).set('X-Parley-Project', `${WORKSPACE}/${PROJECT}`),
    ];
    for (const res of answers) expect(res.status).toBe(200);
    expect(answers[1].body).toEqual(answers[0].body);
    expect(answers[2].body).toEqual(answers[0].body);
    const body = answers[0].body;
    expect(body.object).toBe('list');
    expect(body.data.map((entry: { type: string }) => entry.type)).toEqual(['local', 'openai', 'anthropic']);
    const openai = body.data[1];
    expect(openai.models).toBeNull();
    expect(openai.parameters.find((p: { name: string }) => p.name === 'temperature')).toEqual({
      name: 'temperature',
      description: 'how varied the answer is: lower is more predictable',
      control: 'number',
      minimum: 0,
      maximum: 2,
      maxItems: null,
      choices: null,
      otherValues: false,
      default: 1,
      sent: true,
    });
    expect(body.data[2].parameters.find((p: { name: string }) => p.name === 'temperature').sent).toBe(false);
  });
});
