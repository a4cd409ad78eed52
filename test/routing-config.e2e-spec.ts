import { createProject, TestProject } from './support/factories';
import { createPrompt, createVersion } from './support/registry-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * A version's routing block as the API saves it (docs/routing.md, "The routing block"): provider
 * and model from the first target, every target's provider checked against the project, and a
 * target whose provider type cannot honour the version's fields refused when the version is saved.
 */
describe('registry: the routing block of a version', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  const as = (project: TestProject) => ({ 'X-API-Key': project.key });
  const template = [{ role: 'system', content: 'Answer {{question}}' }];
  const versionRows = async (slug: string) =>
    (await t.dataSource.query(
      `SELECT v.version, v.provider, v.model, v.routing FROM prompt_versions v JOIN prompts p ON p.id = v.prompt_id
       WHERE v.project_id = $1 AND p.slug = $2 ORDER BY v.version`,
      [p.projectId, slug],
    )) as { version: number; provider: string; model: string; routing: unknown }[];
  const save = (slug: string, body: object) => t.http().post(`/v2/prompts/${slug}/versions`).set(as(p)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    other = await createProject(t);
    const credential = (project: TestProject, name: string, type: string, baseUrl: string) =>
      t.http().post('/v2/provider-credentials').set(as(project)).send({ name, type, baseUrl }).expect(200);
    await credential(p, 'gateway', 'openai', 'https://llm.example.invalid/v1');
    await credential(p, 'claude', 'anthropic', 'https://anthropic.example.invalid');
    await credential(other, 'elsewhere', 'openai', 'https://llm.example.invalid/v1');
  });
  afterAll(() => t.close());

  it('saves the block with its defaults, provider and model from the first target, and stores it', async () => {
    await createPrompt(t, p, 'routed');
    const routing = {
      targets: [
        { provider: 'gateway', model: 'gpt-4o-mini' },
        { provider: 'claude', model: 'claude-sonnet', parameters: { temperature: 0.3 } },
        { provider: 'local', model: 'echo' },
      ],
      firstTokenTimeoutMs: 5000,
    };
    const created = await createVersion(t, p, 'routed', { template, routing });
    const expected = {
      strategy: 'priority',
      targets: routing.targets,
      fallbackOn: ['rate_limit', 'server_error', 'timeout', 'connection', 'first_token_timeout'],
      firstTokenTimeoutMs: 5000,
    };
    expect(created).toMatchObject({ version: 1, provider: 'gateway', model: 'gpt-4o-mini', routing: expected });
    const fetched = await t.http().get('/v2/prompts/routed/versions/1').set(as(p)).expect(200);
    expect(fetched.body.routing).toEqual(expected);
    expect(await versionRows('routed')).toEqual([{ version: 1, provider: 'gateway', model: 'gpt-4o-mini', routing: expected }]);
  });

  it("refuses a target whose provider the project does not have (another project's included), naming the target", async () => {
    await createPrompt(t, p, 'unknown-target');
    const res = await save('unknown-target', {
      template,
      routing: {
        targets: [
          { provider: 'local', model: 'echo' },
          { provider: 'nope', model: 'm' },
          { provider: 'elsewhere', model: 'gpt-4o' },
        ],
      },
    }).expect(400);
    expect(res.body.error).toEqual({
      message: 'Invalid request body',
      details: [
        'routing.targets.1.provider: no provider "nope" in this project (use "local" or create a provider credential)',
        'routing.targets.2.provider: no provider "elsewhere" in this project (use "local" or create a provider credential)',
      ],
    });
    expect(await versionRows('unknown-target')).toEqual([]);
  });

  it('refuses a target that cannot honour a JSON answer, each one named with where the field comes from', async () => {
    await createPrompt(t, p, 'json-answer');
    const res = await save('json-answer', {
      template,
      parameters: { response_format: { type: 'json_object' } },
      routing: {
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini' },
          { provider: 'claude', model: 'claude-sonnet' },
          { provider: 'local', model: 'echo' },
        ],
      },
    }).expect(400);
    expect(res.body.error.details).toEqual([
      `routing.targets.1: provider "claude" is of type anthropic, which cannot honour response_format "json_object" (from the version's parameters): override it in this target's parameters, or route to another provider`,
      `routing.targets.2: provider "local" is of type local, which cannot honour response_format "json_object" (from the version's parameters): override it in this target's parameters, or route to another provider`,
    ]);
    const own = await save('json-answer', {
      template,
      routing: {
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini' },
          { provider: 'local', model: 'echo', parameters: { response_format: { type: 'json_object' } } },
        ],
      },
    }).expect(400);
    expect(own.body.error.details).toEqual([
      expect.stringMatching(/^routing\.targets\.1: provider "local" .*\(from this target's parameters\)/),
    ]);
    expect(await versionRows('json-answer')).toEqual([]);

    // The target's own parameters override the version's: a plain-text answer on the targets that cannot give JSON.
    const text = { response_format: { type: 'text' } };
    const saved = await createVersion(t, p, 'json-answer', {
      template,
      parameters: { response_format: { type: 'json_object' } },
      routing: {
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini' },
          { provider: 'claude', model: 'claude-sonnet', parameters: text },
          { provider: 'local', model: 'echo', parameters: text },
        ],
      },
    });
    expect(saved.version).toBe(1);
    expect((await versionRows('json-answer')).map((v) => v.version)).toEqual([1]);
  });

  it('keeps tools on every provider type that can call them, and a version without routing as before', async () => {
    await createPrompt(t, p, 'tooled', 'assistant');
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const routing = {
      targets: [
        { provider: 'claude', model: 'claude-sonnet' },
        { provider: 'local', model: 'echo' },
      ],
    };
    const saved = await createVersion(t, p, 'tooled', { template, tools, parameters: { tool_choice: 'auto' }, routing });
    expect(saved).toMatchObject({ version: 1, provider: 'claude', tools });
    // Without a routing block the single provider is checked only for existence, as it always was.
    const plain = await createVersion(t, p, 'tooled', {
      template,
      provider: 'local',
      model: 'echo',
      parameters: { response_format: { type: 'json_object' } },
    });
    expect(plain).toMatchObject({ version: 2, provider: 'local' });
    expect((await versionRows('tooled')).map((v) => [v.version, v.routing === null])).toEqual([
      [1, false],
      [2, true],
    ]);
  });
});
