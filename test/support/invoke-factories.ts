import type { AddressInfo } from 'node:net';

import OpenAI from 'openai';
import type { Response } from 'supertest';

import { TurnWriter } from '../../src/invocation/turn-writer';
import { FakeUpstream, startFakeOpenAIUpstream } from '../fakes/fake-openai-upstream';
import { createProject, TestProject } from './factories';
import { createTestApp, TestApp } from './test-app';

/** Provider credentials need a key to encrypt them with; every invoke spec's app gets this one. */
export const INVOKE_APP_ENV = { PARLEY_SECRET_KEY: 'invoke-tests-secret-key-0123456789abcdef' };

export interface DeployOptions {
  slug: string;
  kind?: 'prompt' | 'assistant';
  provider?: string;
  model?: string;
  template?: object[];
  parameters?: object;
  tools?: object[];
  variables?: Record<string, string>;
  /** The version's exact response cache (docs/routing.md, "Response cache"). */
  cache?: { ttlSeconds: number };
  /** A routing block (docs/routing.md); provider and model then default to its first target unless given. */
  routing?: object;
  /** Environments to deploy the new version to (default: production). */
  environments?: string[];
}

/**
 * A prompt or assistant with one version deployed, through the public REST API as an operator
 * would (POST /v2/prompts, /versions, /deployments). Calling it again for an existing slug adds a
 * version and deploys it.
 */
export async function deploy(t: TestApp, p: TestProject, opts: DeployOptions) {
  const as = { 'X-API-Key': p.key };
  const exists = await t.http().get(`/v2/prompts/${opts.slug}`).set(as);
  if (exists.status === 404) {
    await t
      .http()
      .post('/v2/prompts')
      .set(as)
      .send({ slug: opts.slug, kind: opts.kind ?? 'prompt' })
      .expect(200);
  }
  const content = {
    template: opts.template ?? [{ role: 'system', content: 'You are terse.' }],
    ...(opts.routing && !opts.provider ? {} : { provider: opts.provider ?? 'local', model: opts.model ?? 'echo' }),
    ...(opts.routing ? { routing: opts.routing } : {}),
    ...(opts.parameters ? { parameters: opts.parameters } : {}),
    ...(opts.tools ? { tools: opts.tools } : {}),
    ...(opts.variables ? { variables: opts.variables } : {}),
    ...(opts.cache ? { cache: opts.cache } : {}),
  };
  const version = await t.http().post(`/v2/prompts/${opts.slug}/versions`).set(as).send(content);
  if (version.status !== 200) throw new Error(`version of ${opts.slug}: ${version.status} ${version.text}`);
  for (const environment of opts.environments ?? ['production']) {
    await t.http().post(`/v2/prompts/${opts.slug}/deployments`).set(as).send({ environment, version: version.body.version }).expect(200);
  }
  return version.body as { id: string; version: number; contentHash: string; declaredVariables: string[] };
}

export async function addProviderCredential(
  t: TestApp,
  p: TestProject,
  cred: { name: string; type: 'openai' | 'anthropic'; baseUrl: string; apiKey?: string },
): Promise<{ id: string; name: string }> {
  const res = await t.http().post('/v2/provider-credentials').set('X-API-Key', p.key).send(cred);
  if (res.status !== 200) throw new Error(`provider credential ${cred.name}: ${res.status} ${res.text}`);
  return res.body;
}

export const invokePath = (p: TestProject, slug: string, environment = 'production') =>
  `/${p.workspace}/${p.project}/${slug}/${environment}`;

/** Starts the app's HTTP server on a free loopback port (for fetch and the openai SDK); returns its base URL. */
export async function listen(t: TestApp): Promise<string> {
  const server = t.app.getHttpServer();
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The official `openai` client pointed at one invoke path. The SDK always POSTs to
 * `${baseURL}/chat/completions`, while Parley's invoke path ends with the slug and environment
 * (`/{workspace}/{project}/{slug}/{environment}`), so the client gets that path as baseURL and a
 * `fetch` that drops the `/chat/completions` the SDK appends. Everything else — the Bearer key,
 * the JSON body the SDK builds, and the parsing of the answer or of the SSE stream — is the SDK's
 * own. No retries: a test must see the first answer.
 */
export function openaiClient(
  baseUrl: string,
  p: TestProject,
  slug: string,
  environment = 'production',
  headers: Record<string, string> = {},
): OpenAI {
  return new OpenAI({
    baseURL: `${baseUrl}${invokePath(p, slug, environment)}`,
    apiKey: p.key,
    maxRetries: 0,
    defaultHeaders: headers,
    fetch: (url: string | URL | Request, init?: RequestInit) => fetch(String(url).replace(/\/chat\/completions$/, ''), init),
  });
}

/** The 400 of both invoke endpoints: exactly `{error, issues}`, each issue exactly code/keys/path/message. */
export function expectInvalidBody(res: Response, issues: unknown[]): void {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'issues']);
  expect(res.body.error).toBe('Invalid request body');
  for (const issue of res.body.issues) {
    expect(Object.keys(issue).sort()).toEqual(['code', 'keys', 'message', 'path']);
    expect(['unrecognized_keys', 'invalid_type']).toContain(issue.code);
    expect(typeof issue.message).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
    for (const part of [...issue.keys, ...issue.path]) expect(typeof part).toBe('string');
  }
  expect(res.body.issues).toEqual(issues);
}

/** The completion answered by both invoke endpoints: the spec's fields plus usage, nothing else. */
export function expectCompletion(body: Record<string, any>, model: string, message: object, finishReason = 'stop'): void {
  expect(Object.keys(body).sort()).toEqual(['choices', 'created', 'id', 'model', 'object', 'usage']);
  expect(typeof body.id).toBe('string');
  expect(body.id.length).toBeGreaterThan(0);
  expect(body.object).toBe('chat.completion');
  // Unix seconds (an upstream's own value is passed on, so not necessarily now).
  expect(Number.isInteger(body.created)).toBe(true);
  expect(body.created).toBeGreaterThan(1_600_000_000);
  expect(body.created).toBeLessThanOrEqual(Date.now() / 1000 + 1);
  expect(body.model).toBe(model);
  expect(body.choices).toEqual([{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }]);
  expect(Object.keys(body.usage).sort()).toEqual(['completion_tokens', 'prompt_tokens', 'total_tokens']);
  expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
}

/** A thread's message rows as stored, in sequence order, deleted ones included. */
export async function threadMessageRows(t: TestApp, projectId: string, threadId: string) {
  const rows: Array<{ id: string; seq: string | number; content: any[]; request_log_id: string | null; deleted_at: Date | null }> =
    await t.dataSource.query(
      'SELECT id, seq, content, request_log_id, deleted_at FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq',
      [projectId, threadId],
    );
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** The request logs of a project as stored, oldest first. */
export async function requestLogRows(t: TestApp, projectId: string): Promise<Array<Record<string, any>>> {
  return t.dataSource.query('SELECT * FROM request_logs WHERE project_id = $1 ORDER BY id', [projectId]);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Requests per minute count in windows aligned on the minute: a test that counts admissions within
 * one window starts at least `needMs` before the next one (else it waits for it to begin).
 */
export async function awayFromMinuteBoundary(needMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await sleep(left + 200);
}

/**
 * The next batch of turns (an assistant's reply and its log) fails inside its transaction, as when
 * PostgreSQL goes away mid-write: on both engines and both of TurnWriter's paths (pipelined on
 * PostgreSQL, a TypeORM transaction on PGlite). Undone by jest.restoreAllMocks().
 */
export function failNextTurnWrite(message = 'Connection terminated unexpectedly'): void {
  jest
    .spyOn(TurnWriter.prototype as unknown as { writeAtOnce: () => Promise<unknown> }, 'writeAtOnce')
    .mockRejectedValueOnce(new Error(message));
}

/**
 * The /v1 files' usual start: an app, a project, the official `openai` client on its /v1 with the
 * project's key, and a fake OpenAI-compatible upstream as the project's provider `upstream`.
 */
export async function openaiClientOnFakeUpstream(): Promise<{
  t: TestApp;
  p: TestProject;
  openai: OpenAI;
  fake: FakeUpstream;
  close: () => Promise<void>;
}> {
  const fake = await startFakeOpenAIUpstream();
  const t = await createTestApp(INVOKE_APP_ENV);
  const base = await listen(t);
  const p = await createProject(t);
  const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
  await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
  const close = async () => {
    await t.close();
    await fake.close();
  };
  return { t, p, openai, fake, close };
}
