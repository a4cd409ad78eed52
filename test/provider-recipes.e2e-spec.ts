import * as fs from 'node:fs';
import * as path from 'node:path';

import { parse } from 'yaml';

import { anthropicJson, anthropicMessage } from './fakes/fake-anthropic-upstream';
import { openaiCompletion, openaiError, openaiJson } from './fakes/fake-openai-upstream';
import { FakeUpstream, startFakeUpstream } from './fakes/fake-upstream';
import { createProject } from './support/factories';
import { INVOKE_APP_ENV } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** The `# recipe: <name>` YAML blocks of docs/providers.md, as written there. */
const recipes = [
  ...fs.readFileSync(path.join(__dirname, '..', 'docs', 'providers.md'), 'utf8').matchAll(/```yaml\n# recipe: (\S+)[^\n]*\n([\s\S]*?)```/g),
].map((m) => ({ name: m[1], yaml: m[2] }));

interface Recipe {
  providers: { name: string; type: 'openai' | 'anthropic'; baseUrl: string; apiKeyEnv?: string }[];
  prompts: { slug: string; model: string; provider: string }[];
}

/**
 * docs/providers.md's recipes (issue 11 item 4): each is applied with its baseUrl's origin pointed at
 * a fake upstream of the same wire format (the path kept), then invoked; the upstream must receive
 * the recipe's model at the recipe's path, with the key from the recipe's apiKeyEnv.
 */
describe('provider recipes of docs/providers.md, against fake upstreams', () => {
  let t: TestApp;
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;

  beforeAll(async () => {
    // The operator binds each recipe's variable to the fakes' host, as docs/providers.md tells it to bind them to the real ones.
    const variables = recipes.flatMap((r) => [...r.yaml.matchAll(/apiKeyEnv: (\w+)/g)].map((m) => m[1]));
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_KEY_BINDINGS: variables.map((v) => `${v}=127.0.0.1`).join(';') });
    openai = await startFakeUpstream((req) =>
      req.method === 'POST' && req.path.endsWith('/chat/completions')
        ? openaiJson(openaiCompletion({ content: 'pong', model: req.body.model }))
        : openaiError(404, `No route ${req.path}`),
    );
    anthropic = await startFakeUpstream(() => anthropicJson(anthropicMessage({ text: 'pong' })));
  });
  afterAll(async () => {
    await Promise.all([openai.close(), anthropic.close()]);
    await t.close();
  });

  it('has the seven recipes the docs promise', () => {
    expect(recipes.map((r) => r.name)).toEqual(['openai', 'anthropic', 'azure', 'openrouter', 'ollama', 'vllm', 'llamacpp']);
  });

  it.each(recipes.map((r) => [r.name, r.yaml]))('%s: applies, invokes, and reaches the upstream as documented', async (_name, yaml) => {
    const p = await createProject(t);
    const recipe = parse(yaml) as Recipe;
    const [declared] = recipe.providers;
    const fake = declared.type === 'anthropic' ? anthropic : openai;
    const documented = new URL(declared.baseUrl);
    const pointed = yaml
      .replace(/^workspace: .*$/m, `workspace: ${p.workspace}`)
      .replace(/^project: .*$/m, `project: ${p.project}`)
      .replace(declared.baseUrl, `${fake.url}${documented.pathname.replace(/\/$/, '')}`);
    const secret = `sk-${_name}-0123456789`;
    if (declared.apiKeyEnv) process.env[declared.apiKeyEnv] = secret;
    try {
      const applied = await t.http().post('/v2/apply').set('X-API-Key', p.key).send({ yaml: pointed }).expect(200);
      expect(applied.body.warnings).toBeUndefined();
      const seen = fake.requests.length;
      const res = await t
        .http()
        .post(`/${p.workspace}/${p.project}/ask/production`)
        .set('X-API-Key', p.key)
        .send({ messages: [{ role: 'user', content: 'ping' }] });
      expect([res.status, res.body.choices?.[0]?.message?.content]).toEqual([200, 'pong']);
      const sent = fake.requests[seen];
      const expectedPath = declared.type === 'anthropic' ? '/v1/messages' : `${documented.pathname.replace(/\/$/, '')}/chat/completions`;
      expect(sent.path).toBe(expectedPath);
      expect(sent.body.model).toBe(recipe.prompts[0].model);
      // The Anthropic SDK sends the key as x-api-key or as a bearer token, depending on its version.
      const presented = sent.headers['x-api-key'] ?? sent.headers.authorization?.replace(/^Bearer /, '');
      if (declared.apiKeyEnv) expect(presented).toBe(secret);
      else expect(sent.headers.authorization).toBeUndefined();
    } finally {
      if (declared.apiKeyEnv) delete process.env[declared.apiKeyEnv];
    }
  });
});
