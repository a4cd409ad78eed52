import { TestProject } from './factories';
import { TestApp } from './test-app';

/** A template with one variable, content that a version of the built-in local/echo provider accepts. */
export const versionBody = (content = 'Summarize for {{audience}}.', extra: object = {}) => ({
  template: [{ role: 'system', content }],
  provider: 'local',
  model: 'echo',
  ...extra,
});

export async function createPrompt(t: TestApp, p: TestProject, slug: string, kind: 'prompt' | 'assistant' = 'prompt') {
  const res = await t.http().post('/v2/prompts').set('X-API-Key', p.key).send({ slug, kind }).expect(200);
  return res.body as { id: string; slug: string; kind: string };
}

export async function createVersion(t: TestApp, p: TestProject, slug: string, body: object = versionBody()) {
  const res = await t.http().post(`/v2/prompts/${slug}/versions`).set('X-API-Key', p.key).send(body).expect(200);
  return res.body as { id: string; version: number; contentHash: string } & Record<string, unknown>;
}

export async function deploy(t: TestApp, p: TestProject, slug: string, environment: string, version?: number) {
  const res = await t
    .http()
    .post(`/v2/prompts/${slug}/deployments`)
    .set('X-API-Key', p.key)
    .send({ environment, ...(version === undefined ? {} : { version }) })
    .expect(200);
  return res.body as { id: string; version: number; deploymentVersion: number } & Record<string, unknown>;
}

/** A prompt with one version deployed to production. */
export async function deployedPrompt(
  t: TestApp,
  p: TestProject,
  slug: string,
  kind: 'prompt' | 'assistant' = 'prompt',
  body: object = versionBody(),
) {
  await createPrompt(t, p, slug, kind);
  const version = await createVersion(t, p, slug, body);
  const deployment = await deploy(t, p, slug, 'production');
  return { version, deployment };
}
