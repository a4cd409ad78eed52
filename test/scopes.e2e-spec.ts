import { randomUUID } from 'node:crypto';

import OpenAI from 'openai';
import type { Response } from 'supertest';

import { ApiKeysService } from '../src/auth/api-keys.service';
import { Scope, SCOPES } from '../src/auth/scopes';
import { PROTECTION_NEEDS_PERSON } from '../src/registry/environments/environment-protection.service';
import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, listen } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Route {
  method: Method;
  /** As Express matches it, e.g. `/v2/threads/:threadId`. */
  path: string;
  scopes: (Scope | typeof ANY)[] | null;
  adminOnly: boolean;
}

/** Routes that need no key at all; every other route must declare a scope. */
const PUBLIC = new Set([
  'GET /health',
  'GET /ready',
  'GET /metrics',
  'GET /docs',
  'GET /docs-json',
  'GET /docs-yaml',
  'POST /v2/console/session',
  // Sign-in with OpenID Connect and the sign-in screen's options (docs/security.md, "Sign-in"): before any session.
  'GET /v2/console/sign-in-options',
  'GET /v2/console/oidc/login',
  'GET /v2/console/oidc/callback',
  // A redirect to the console (docs/console.md), answered before any guard.
  'GET /',
]);
/** Routes about the caller itself, which any key reaches whatever its scopes (@AnyScope). */
const ANY = 'any';

/**
 * Which scope each group of routes needs (docs/security.md, "Scopes"). A route the application
 * serves that matches none of these, or whose declared scope differs, fails the test: a new route
 * needs a scope and a line here.
 */
const EXPECTED: [RegExp, (Scope | typeof ANY)[]][] = [
  [/^POST \/(project-prompt\/:slug\/:environment|:workspace\/:project\/:slug\/:environment)$/, ['invoke']],
  [/^POST \/v1\/(chat\/completions|responses|responses\/input_tokens|responses\/compact|responses\/:responseId\/cancel)$/, ['invoke']],
  [/^POST \/v1\/messages(\/count_tokens)?$/, ['invoke']],
  [/^POST \/v1\/embeddings$/, ['invoke']],
  [/^GET \/v1\/models/, ['invoke', 'registry:read']],
  [/^GET \/v1\/evals/, ['registry:read']],
  [/^(POST|DELETE) \/v1\/evals/, ['registry:write']],
  [/^GET \/v1\/(conversations|responses)/, ['threads:read']],
  [/^(POST|DELETE) \/v1\/(conversations|responses)/, ['threads:write']],
  [/^GET \/v2\/threads/, ['threads:read']],
  [/^(POST|DELETE) \/v2\/threads/, ['threads:write']],
  [/^POST \/v2\/import$/, ['threads:write']],
  [/^GET \/v2\/logs/, ['logs:read']],
  // Feedback is read with the logs it is about; giving it is a scope of its own, in the app preset (docs/experiments.md).
  [/^GET \/v2\/feedback/, ['logs:read']],
  [/^POST \/v2\/feedback$/, ['feedback:write']],
  [/^GET \/v2\/usage$/, ['usage:read']],
  [/^GET \/v2\/usage\/budgets$/, ['usage:read']],
  [/^GET \/v2\/audit$/, ['audit:read']],
  // The instance's own trail (docs/security.md, "Audit trail"): the instance's or a workspace's admin.
  [/^GET \/v2\/admin\/audit$/, ['audit:read']],
  [/^GET \/v1\/organization\//, ['usage:read']],
  // Per-arm results are usage figures (docs/experiments.md, "Per-arm results"), though under /v2/prompts.
  [/^GET \/v2\/prompts\/:slug\/deployments\/:environment\/results$/, ['usage:read']],
  [
    /^GET \/v2\/(prompts|environments|deployments|export)|^GET \/(project-prompt|list-deployments|:workspace\/:project\/:slug\/:environment)/,
    ['registry:read'],
  ],
  // Deploying and rolling back are a scope of their own (docs/security.md, "Roles").
  [/^POST \/v2\/prompts\/:slug\/deployments$/, ['deploy']],
  // Undeploying (docs/registry.md, "Undeploying") is deploying's; archiving and deleting an environment, registry:write's.
  [/^DELETE \/v2\/prompts\/:slug\/deployments\/:environment$/, ['deploy']],
  [/^DELETE \/v2\/environments\/:slug$/, ['registry:write']],
  [/^POST \/v2\/(prompts|environments|apply)/, ['registry:write']],
  // Protected environments (the project's admin role) and their deployment requests (docs/security.md, "Approvals").
  [/^(PUT|DELETE) \/v2\/environments\/:slug\/protection$/, ['members:manage']],
  [/^GET \/v2\/deployment-requests(\/:id)?$/, ['registry:read']],
  [/^POST \/v2\/deployment-requests\/:id\/(approve|reject|cancel)$/, ['deploy']],
  // Evaluations and deploy gates are registry content (docs/evals.md).
  [/^GET \/v2\/(datasets|graders|evals)/, ['registry:read']],
  [/^(POST|PUT|PATCH|DELETE) \/v2\/(datasets|graders|evals)/, ['registry:write']],
  [/^(PUT|DELETE) \/v2\/environments\/:slug\/gate$/, ['registry:write']],
  [/^GET \/v2\/settings$/, ['registry:read']],
  [/^PATCH \/v2\/settings$/, ['registry:write']],
  // The parameters the playground offers controls for (docs/console.md): read with the registry or the providers.
  [/^GET \/v2\/providers\/parameters$/, ['registry:read', 'providers:read']],
  [/^GET \/v2\/(provider-credentials|webhooks)/, ['providers:read']],
  [/^(POST|PUT|DELETE) \/v2\/(provider-credentials|webhooks)/, ['providers:write']],
  // A project's keys: the admin key's, and a project key's own project's (docs/security.md, "Managing keys").
  [/^(GET|POST|PUT|DELETE) \/v2\/workspaces\/:workspace\/projects\/:project\/api-keys(\/:keyId(\/access)?)?$/, ['keys:manage']],
  // A workspace's SCIM tokens provision its people (docs/security.md, "SCIM").
  [/^(GET|POST|DELETE) \/v2\/workspaces\/:workspace\/scim-tokens(\/:tokenId)?$/, ['members:manage']],
  // Members, group roles and instance admins (docs/security.md, "Roles"); a project's members also a project key's own.
  [/^(GET|PUT|DELETE) \/v2\/workspaces\/:workspace\/(members(\/:user)?|group-roles(\/:group)?)$/, ['members:manage']],
  [/^(GET|PUT|DELETE) \/v2\/workspaces\/:workspace\/projects\/:project\/members(\/:user)?$/, ['members:manage']],
  [/^(GET|PUT|DELETE) \/v2\/admin\/users(\/:user\/instance-admin)?$/, ['members:manage']],
  [/^(GET|POST|PUT|DELETE) \/v2\/workspaces/, ['keys:manage']],
  [/^(GET|DELETE) \/v2\/console\/session$/, [ANY]],
];

/** The routes Express serves, read from the application's own router. */
function routerRoutes(t: TestApp): { method: Method; path: string }[] {
  const express = t.app.getHttpAdapter().getInstance() as { router?: { stack: unknown[] }; _router?: { stack: unknown[] } };
  const stack = (express.router ?? express._router)!.stack as { route?: { path: string; methods: Record<string, boolean> } }[];
  return stack
    .filter((layer) => layer.route)
    .flatMap((layer) => Object.keys(layer.route!.methods).map((method) => ({ method: method as Method, path: layer.route!.path })));
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');
const label = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

describe('scoped API keys', () => {
  let t: TestApp;
  let baseUrl: string;
  let p: TestProject;
  let routes: Route[];
  let scimRoutes: { method: Method; path: string }[];
  const keyCache = new Map<string, string>();

  /** A project key of `p` with exactly these scopes, made through the admin API. */
  async function projectKey(scopes: Scope[], environments?: string[]): Promise<string> {
    const cacheKey = `p:${scopes.join(',')}:${environments ?? ''}`;
    if (!keyCache.has(cacheKey)) {
      const res = await t
        .http()
        .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
        .set('X-API-Key', TEST_ADMIN_KEY)
        .send({ name: cacheKey, scopes, ...(environments ? { environments } : {}) })
        .expect(200);
      expect(res.body.scopes).toEqual(SCOPES.filter((s) => scopes.includes(s)));
      keyCache.set(cacheKey, res.body.key);
    }
    return keyCache.get(cacheKey)!;
  }

  /** An instance admin key with exactly these scopes (admin keys are issued by `parley init`, not over HTTP). */
  async function adminKey(scopes: Scope[]): Promise<string> {
    const cacheKey = `a:${scopes.join(',')}`;
    if (!keyCache.has(cacheKey))
      keyCache.set(cacheKey, (await t.app.get(ApiKeysService).issue('admin', null, cacheKey, { scopes })).secret);
    return keyCache.get(cacheKey)!;
  }

  const fill = (path: string) =>
    path
      .replace(':workspace', p.workspace)
      .replace(':project', p.project)
      // Not production for an undeploy, which the later tests invoke: preview, where nothing runs (a 404 past the guard).
      .replace(':environment', path === '/v2/prompts/:slug/deployments/:environment' ? 'preview' : 'production')
      .replace(':slug', 'sc-prompt')
      .replace(/:[A-Za-z]+/g, () => randomUUID());

  const send = (route: Route, key: string) => {
    const req = t.http()[route.method](fill(route.path)).set('X-API-Key', key);
    // `scopes: []`: a key-making route then asks for nothing beyond what the calling key holds; elsewhere it is an unknown field (400, past the guard).
    return route.method === 'get' || route.method === 'delete' ? req : req.send({ scopes: [] });
  };

  function expectRefused(res: Response, route: Route): void {
    expect([label(route), res.status]).toEqual([label(route), 403]);
    if (route.path.startsWith('/v1/messages')) {
      // Anthropic's Messages API answers in Anthropic's error shape (docs/anthropic-compatibility.md).
      expect(res.body).toEqual({
        type: 'error',
        error: { type: 'permission_error', message: expect.stringContaining('scope') },
        request_id: expect.any(String),
      });
    } else if (route.path.startsWith('/v1/')) {
      expect(res.body).toEqual({
        error: { message: expect.stringContaining('scope'), type: 'permission_error', param: null, code: 'permission_denied' },
      });
    } else {
      expect(res.body).toEqual({ error: 'Forbidden', message: expect.stringContaining('scope') });
    }
  }

  beforeAll(async () => {
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_KEY_BINDINGS: 'PARLEY_PROVIDER_TEST_KEY=api.openai.com' });
    baseUrl = await listen(t);
    p = await createProject(t);
    await deploy(t, p, { slug: 'sc-prompt', environments: ['production', 'staging'] });
    await deploy(t, p, { slug: 'sc-assistant', kind: 'assistant' });
    const document = (await t.http().get('/docs-json').expect(200)).body;
    // The SCIM fallback (@All) is listed once per HTTP method: the five the test sends are enough.
    const methods = new Set(['get', 'post', 'put', 'patch', 'delete']);
    scimRoutes = routerRoutes(t).filter((r) => r.path.startsWith('/scim/') && methods.has(r.method));
    routes = routerRoutes(t)
      // /scim/v2 is @Public() to the key guard: a SCIM token authenticates it (scim.e2e-spec.ts).
      .filter((r) => !PUBLIC.has(label(r)) && !r.path.startsWith('/docs/') && !r.path.startsWith('/scim/'))
      .map((r) => {
        const operation = document.paths[toOpenApiPath(r.path)]?.[r.method];
        const security: object[] = operation?.security ?? [];
        return {
          ...r,
          scopes: operation?.['x-parley-scopes'] ?? null,
          adminOnly: security.length > 0 && security.every((s) => Object.keys(s).includes('admin-key')),
        };
      });
  });
  afterAll(() => t.close());

  it('no API key reaches a SCIM route: each answers SCIM’s 401 (its bearer must be a SCIM token)', async () => {
    expect(scimRoutes.length).toBeGreaterThanOrEqual(17);
    const failures: string[] = [];
    for (const route of scimRoutes) {
      for (const key of [TEST_ADMIN_KEY, p.key]) {
        const res = await t.http()[route.method](fill(route.path).replace('*path', 'x')).set('Authorization', `Bearer ${key}`);
        if (res.status !== 401 || res.body.schemas?.[0] !== 'urn:ietf:params:scim:api:messages:2.0:Error')
          failures.push(`${label(route)}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('every route the router serves declares the scope its group needs', () => {
    expect(routes.length).toBeGreaterThan(60);
    const problems = routes.flatMap((route) => {
      const expected = EXPECTED.find(([pattern]) => pattern.test(label(route)))?.[1];
      if (!route.scopes) return [`${label(route)}: no declared scope`];
      if (!expected) return [`${label(route)}: not in this test's table (declares ${route.scopes.join(', ')})`];
      return JSON.stringify(route.scopes) === JSON.stringify(expected)
        ? []
        : [`${label(route)}: declares ${route.scopes.join(', ')}, expected ${expected.join(', ')}`];
    });
    expect(problems).toEqual([]);
  });

  it("a project's key and member routes admit a project key (its own project); the rest of /v2/workspaces stays the admin key's", () => {
    const admin = routes.filter((r) => r.path.startsWith('/v2/workspaces'));
    const expected = admin.map((r) => [
      label(r),
      /\/projects\/:project\/(api-keys(\/:keyId(\/access)?)?|members(\/:user)?)$/.test(r.path) ? 'project key too' : 'admin only',
    ]);
    expect(admin.map((r) => [label(r), r.adminOnly ? 'admin only' : 'project key too'])).toEqual(expected);
    expect(expected.filter(([, who]) => who === 'project key too')).toHaveLength(7);
  });

  it('each route admits a key holding (only) one of its scopes and refuses a key holding every other scope', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const keyFor = route.adminOnly ? adminKey : projectKey;
      if (route.scopes![0] === ANY) {
        const allowed = await send(route, await keyFor([]));
        if (allowed.status === 401 || allowed.status === 403 || allowed.status >= 500)
          failures.push(`allowed ${label(route)} without scopes: ${allowed.status}`);
        continue;
      }
      const scopes = route.scopes as Scope[];
      const others = SCOPES.filter((s) => !scopes.includes(s));
      const refused = await send(route, await keyFor(others));
      try {
        expectRefused(refused, route);
      } catch {
        failures.push(`refused ${label(route)}: ${refused.status} ${refused.text.slice(0, 200)}`);
      }
      for (const scope of scopes) {
        const allowed = await send(route, await keyFor([scope]));
        // Past the guard, an environment's protection refuses every project key (docs/security.md, "Approvals").
        if (allowed.status === 403 && allowed.body.message === PROTECTION_NEEDS_PERSON) continue;
        if (allowed.status === 401 || allowed.status === 403 || allowed.status >= 500)
          failures.push(`allowed ${label(route)} with ${scope}: ${allowed.status} ${allowed.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a key made without scopes has them all (null), as keys made before scopes existed', async () => {
    const res = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ name: 'legacy' })
      .expect(200);
    expect(res.body).toMatchObject({ scopes: null, environments: null });
    for (const path of ['/v2/logs', '/v2/provider-credentials', '/v2/prompts', '/v2/threads'])
      await t.http().get(path).set('X-API-Key', res.body.key).expect(200);
    await t
      .http()
      .post(invokePath(p, 'sc-prompt', 'staging'))
      .set('X-API-Key', res.body.key)
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
  });

  it('the app preset invokes and keeps threads, and cannot read logs, create providers or apply files', async () => {
    const created = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ name: 'app', preset: 'app' })
      .expect(200);
    expect(created.body.scopes).toEqual(['invoke', 'threads:read', 'threads:write', 'feedback:write']);
    const app = { 'X-API-Key': created.body.key };
    const invoked = await t
      .http()
      .post(invokePath(p, 'sc-assistant'))
      .set(app)
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
    await t.http().get(`/v2/threads/${invoked.headers['x-parley-thread-id']}/messages`).set(app).expect(200);

    const logsBefore = await t.dataSource.query('SELECT count(*)::int AS n FROM provider_credentials WHERE project_id = $1', [p.projectId]);
    expect((await t.http().get('/v2/logs').set(app)).status).toBe(403);
    const provider = await t
      .http()
      .post('/v2/provider-credentials')
      .set(app)
      .send({ name: 'x', type: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-x' });
    expect(provider.status).toBe(403);
    const applied = await t.http().post('/v2/apply').set(app).send({ workspace: p.workspace, project: p.project, prompts: [] });
    expect(applied.status).toBe(403);
    expect(await t.dataSource.query('SELECT count(*)::int AS n FROM provider_credentials WHERE project_id = $1', [p.projectId])).toEqual(
      logsBefore,
    );

    // A console session made from the key has the key's scopes, no more.
    const session = await t.http().post('/v2/console/session').send({ key: created.body.key }).expect(200);
    const cookie = (session.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    await t.http().get('/v2/threads').set('Cookie', cookie).expect(200);
    expect((await t.http().get('/v2/logs').set('Cookie', cookie)).status).toBe(403);
  });

  it('an environment-limited key invokes production and is refused staging, on the spec endpoint and on /v1', async () => {
    const key = await projectKey(['invoke'], ['production']);
    const body = { messages: [{ role: 'user', content: 'hi' }] };
    await t
      .http()
      .post(invokePath(p, 'sc-prompt', 'production'))
      .set('X-API-Key', key)
      .send(body)
      .expect(200);
    const refused = await t
      .http()
      .post(invokePath(p, 'sc-prompt', 'staging'))
      .set('X-API-Key', key)
      .send(body);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Forbidden', message: 'This API key may only invoke deployments in: production' });
    const legacy = await t.http().post(`/project-prompt/sc-prompt/staging`).set('X-API-Key', key).send(body);
    expect(legacy.status).toBe(403);

    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const ok = await openai.chat.completions.create({ model: 'sc-prompt@production', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.choices[0].message.role).toBe('assistant');
    const err = await openai.chat.completions
      .create({ model: 'sc-prompt@staging', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((err as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe('permission_denied');
    // A direct provider call names no environment: refused too.
    const direct = await openai.chat.completions
      .create({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const logged = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM request_logs WHERE project_id = $1 AND environment = 'staging'`,
      [p.projectId],
    );
    expect(logged[0].n).toBe(1); // the legacy key's call above only
  });

  it('a file that changes a provider needs providers:write; an editor key applies prompts and unchanged providers', async () => {
    const own = await createProject(t);
    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    const editor = (
      await t
        .http()
        .post(`/v2/workspaces/${own.workspace}/projects/${own.project}/api-keys`)
        .set(admin)
        .send({ preset: 'editor' })
        .expect(200)
    ).body.key;
    const provider = { name: 'up', type: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'PARLEY_PROVIDER_TEST_KEY' };
    const file = {
      workspace: own.workspace,
      project: own.project,
      providers: [provider],
      prompts: [{ slug: 'ed', model: 'echo', template: [{ role: 'system', content: 'x' }], deploy: ['production'] }],
    };
    const refused = await t.http().post('/v2/apply').set('X-API-Key', editor).send(file);
    expect([refused.status, refused.body.message]).toEqual([403, 'Changing provider "up" needs an API key with the providers:write scope']);
    expect(await t.dataSource.query('SELECT slug FROM prompts WHERE project_id = $1', [own.projectId])).toEqual([]);
    await t.http().post('/v2/apply').set('X-API-Key', own.key).send(file).expect(200);
    const again = await t
      .http()
      .post('/v2/apply')
      .set('X-API-Key', editor)
      .send({ ...file, prompts: [{ ...file.prompts[0], template: [{ role: 'system', content: 'y' }] }] });
    expect(again.status).toBe(200);
  });

  it('PUT .../access replaces scopes at once; bad scopes, presets and environments are 400s', async () => {
    const keys = `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`;
    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    const created = (await t.http().post(keys).set(admin).send({ name: 'changing', preset: 'viewer' }).expect(200)).body;
    await t.http().get('/v2/logs').set('X-API-Key', created.key).expect(200);
    const updated = await t
      .http()
      .put(`${keys}/${created.id}/access`)
      .set(admin)
      .send({ preset: 'app', environments: ['production'] })
      .expect(200);
    expect(updated.body).toMatchObject({
      id: created.id,
      scopes: ['invoke', 'threads:read', 'threads:write', 'feedback:write'],
      environments: ['production'],
    });
    expect(JSON.stringify(updated.body)).not.toContain(created.key);
    expect((await t.http().get('/v2/logs').set('X-API-Key', created.key)).status).toBe(403);
    const full = await t.http().put(`${keys}/${created.id}/access`).set(admin).send({}).expect(200);
    expect(full.body).toMatchObject({ scopes: null, environments: null });
    await t.http().get('/v2/logs').set('X-API-Key', created.key).expect(200);
    await t.http().put(`${keys}/${randomUUID()}/access`).set(admin).send({}).expect(404);

    for (const bad of [
      { scopes: ['root'] },
      { preset: 'owner' },
      { scopes: 'invoke' },
      { environments: [] },
      { environments: ['Prod uction'] },
    ]) {
      const res = await t.http().post(keys).set(admin).send(bad);
      expect([JSON.stringify(bad), res.status, typeof res.body.error?.message]).toEqual([JSON.stringify(bad), 400, 'string']);
    }
  });
});
