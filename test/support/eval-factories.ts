import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';

import { openaiCompletion, openaiError } from '../fakes/fake-openai-upstream';
import { createProject } from './factories';
import { Client, client } from './http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, sleep } from './invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './test-app';

/**
 * Evaluations e2e helpers (docs/evals.md): a scripted OpenAI-compatible upstream whose answer is a
 * function of the request (the test/fakes upstreams answer from a queue or echo, and cannot delay a
 * JSON answer), the 200-item experiment's script and an independent oracle of every grader's score.
 */

export type Reply = { say: string | null; call?: { name: string; arguments: string }; delayMs?: number } | 'hang';

export interface ScriptedRequest {
  body: any;
  receivedAt: number;
  /** Date.now() when the connection closed (null while open). */
  closedAt: number | null;
  /** The connection closed before an answer was sent (the client went away). */
  closedEarly: boolean;
}

export interface ScriptedUpstream {
  url: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

/** Usage the scripted upstream reports: 10 prompt tokens, one completion token per character of the answer. */
export const usageOf = (reply: Exclude<Reply, 'hang'>) => ({
  prompt_tokens: 10,
  completion_tokens: (reply.say ?? '').length + (reply.call?.arguments.length ?? 0),
});

const textOf = (message: any): string => (typeof message?.content === 'string' ? message.content : '');

/** POST /v1/chat/completions answered with `script(system text, last user text)`. */
export async function startScriptedUpstream(script: (system: string, user: string) => Reply): Promise<ScriptedUpstream> {
  const requests: ScriptedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
    const rec: ScriptedRequest = { body, receivedAt: Date.now(), closedAt: null, closedEarly: false };
    requests.push(rec);
    res.on('close', () => Object.assign(rec, { closedAt: Date.now(), closedEarly: !res.writableEnded }));
    const send = (status: number, payload: unknown) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (req.url !== '/v1/chat/completions') return send(404, (openaiError(404, 'no route') as { body: unknown }).body);
    const messages: any[] = body.messages ?? [];
    const reply = script(textOf(messages.find((m) => m.role === 'system')), textOf([...messages].reverse().find((m) => m.role === 'user')));
    if (reply === 'hang') return;
    if (reply.delayMs) await sleep(reply.delayMs);
    const toolCalls = reply.call ? [{ id: 'call_1', ...reply.call }] : undefined;
    send(200, openaiCompletion({ content: reply.say, toolCalls, model: body.model, usage: usageOf(reply) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The experiments' app: a project whose provider `up` is a scripted upstream (priced one USD per
 * completion token, so an item's cost is its answer's length) that hangs for the system message
 * "hang", answers the script for "v1" and "v2" (the user message is n) and else echoes; and `judge`,
 * a deployed local/echo prompt whose answer is the output it judges.
 */
export async function startExperimentApp() {
  const up = await startScriptedUpstream((system, user) =>
    system === 'hang' ? 'hang' : system === 'v1' || system === 'v2' ? replyOf(system, Number(user)) : { say: user },
  );
  // Two runs at once per instance (the default, stated: the cancel test queues a third).
  const t = await createTestApp({ ...INVOKE_APP_ENV, EVAL_RUNS_CONCURRENCY: '2' });
  const p = await createProject(t);
  await addProviderCredential(t, p, { name: 'up', type: 'openai', baseUrl: up.url, apiKey: 'sk-up' });
  const prices = { prices: [{ provider: 'up', model: 'gpt-eval', inputPerMTok: 0, outputPerMTok: 1_000_000 }] };
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  await t.http().put(`/v2/workspaces/${p.workspace}/projects/${p.project}/prices`).set(admin).send(prices).expect(200);
  await deploy(t, p, { slug: 'judge', template: [{ role: 'user', content: '{{output}}' }] });
  return { t, p, api: client(t, p.key), up };
}

/** The experiments' prompt content: a system message the script reads, then n as the user message; the tool `lookup`. */
export const template = (system: string) => [
  { role: 'system', content: system },
  { role: 'user', content: '{{n}}' },
];
export const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];

/** A dataset with these items (one version); answers their ids in order. */
export async function createDataset(api: Client, name: string, items: object[]): Promise<string[]> {
  await api.post('/v2/datasets', { name }).expect(200);
  return (await api.post(`/v2/datasets/${name}/items`, { items }).expect(200)).body.itemIds;
}

/** GET /v2/usage by environment over the last two hours: the lines of one environment. */
export async function usageByEnvironment(api: Client) {
  const from = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000).toISOString();
  const { data } = (await api.get(`/v2/usage?from=${from}&bucket=hour&group_by=environment`).expect(200)).body;
  return (environment: string) => data.filter((row: any) => row.environment === environment);
}

// ---- The 200-item experiment: item n's answer under prompt version v1 or v2 ----

export const ITEMS = 200;
export const SLOW_MS = 1000;
/** The latency grader's limit: a slow item's call (SLOW_MS upstream) always exceeds it. */
export const MAX_MS = 900;
export const isSlow = (n: number) => n % 25 === 11;

/**
 * v1 answers "ok" (n % 5 = 3: "fine") as JSON (n % 3 = 2: plain text), tag x for n % 4 = 0, calls
 * `lookup` with {id: n} for an even n (n % 12 = 0: with no text at all). v2 changes a known subset:
 * n % 10 = 7 answers "wrong", n % 15 = 3 answers "ok" instead of "fine", n % 16 = 4 tags "z",
 * n % 8 = 2 calls lookup with a text id.
 */
export function replyOf(version: string, n: number): Exclude<Reply, 'hang'> {
  const v2 = version === 'v2';
  const word = v2 && n % 10 === 7 ? 'wrong' : n % 5 === 3 && !(v2 && n % 15 === 3) ? 'fine' : 'ok';
  const tag = v2 && n % 16 === 4 ? 'z' : n % 4 === 0 ? 'x' : 'y';
  const say = n % 12 === 0 ? null : n % 3 === 2 ? `answer ${word}` : JSON.stringify({ answer: word, n, tag });
  const id = v2 && n % 8 === 2 ? `x${n}` : n;
  return {
    say,
    ...(n % 2 === 0 ? { call: { name: 'lookup', arguments: JSON.stringify({ id }) } } : {}),
    ...(isSlow(n) ? { delayMs: SLOW_MS } : {}),
  };
}

/** What item n expects: v1's ideal answer (JSON as JSON). */
export const expectedOf = (n: number): unknown => (n % 3 === 2 ? 'answer ok' : { answer: 'ok', n, tag: n % 4 === 0 ? 'x' : 'y' });

export const MAX_USD = 41;

/** The named graders of the experiment, one of each kind (PUT /v2/graders/{name} bodies). */
export const GRADERS: Record<string, { threshold?: number; config: Record<string, unknown> }> = {
  exact: { config: { type: 'equals' } },
  mentions: { config: { type: 'contains', values: ['answer', 'ok'] } },
  shape: { config: { type: 'regex', pattern: 'answer\\W+(ok|fine)\\b' } },
  schema: {
    config: {
      type: 'json_schema',
      schema: { type: 'object', required: ['answer', 'n', 'tag'], properties: { n: { type: 'integer' }, tag: { enum: ['x', 'y'] } } },
    },
  },
  'tag-x': { config: { type: 'json_path', path: '$.tag', value: 'x' } },
  lookup: {
    config: {
      type: 'tool_call',
      name: 'lookup',
      arguments: { type: 'object', required: ['id'], properties: { id: { type: 'integer', maximum: 150 } } },
    },
  },
  fast: { config: { type: 'latency', maxMs: MAX_MS } },
  cheap: { config: { type: 'cost', maxUsd: MAX_USD } },
  judge: { config: { type: 'model', prompt: 'judge', labels: { ok: 1, fine: 0.5, wrong: 0 } } },
};
export const GRADER_NAMES = Object.keys(GRADERS);

const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Each grader's score of item n's reply, worked out from the script (not from the server's checks).
 * Latency is the one measured: the scripted upstream shares the test's event loop (and PGlite), so
 * a fast item's call may take long under load; a slow one always takes SLOW_MS or more.
 */
export function oracle(n: number, reply: Exclude<Reply, 'hang'>, latencyMs: number): Record<string, number> {
  const text = reply.say ?? '';
  const json = parse(text);
  const expected = expectedOf(n);
  const args = reply.call ? parse(reply.call.arguments) : undefined;
  const label = ['wrong', 'fine', 'ok'].find((word) => text.includes(word));
  const b = (value: boolean) => (value ? 1 : 0);
  return {
    exact: b(typeof expected === 'string' ? text === expected : isDeepStrictEqual(json, expected)),
    mentions: (b(text.includes('answer')) + b(text.includes('ok'))) / 2,
    shape: b(/answer\W+(ok|fine)\b/.test(text)),
    schema: b(typeof json === 'object' && json !== null && Number.isInteger(json.n) && 'answer' in json && ['x', 'y'].includes(json.tag)),
    'tag-x': b(json?.tag === 'x'),
    lookup: b(reply.call?.name === 'lookup' && Number.isInteger(args?.id) && args.id <= 150),
    fast: b(latencyMs <= MAX_MS),
    cheap: b(usageOf(reply).completion_tokens <= MAX_USD),
    judge: label === undefined ? 0 : { ok: 1, fine: 0.5, wrong: 0 }[label]!,
  };
}

export const thresholdOf = (grader: string) => (grader === 'judge' ? 0.5 : 1);
/** The mean over `graders`, summed in their order as the server does. */
export const meanOf = (scores: Record<string, number>, graders = GRADER_NAMES) =>
  graders.reduce((sum, grader) => sum + scores[grader], 0) / graders.length;

/** A run item as GET /v2/evals/runs/{id}/items should list it: item n ({variables: {n}, expected}) answered by `reply`, graded by `graders`. */
export function expectedRunItem(itemId: string, n: number, reply: Exclude<Reply, 'hang'>, latencyMs: number, graders = GRADER_NAMES) {
  const scores = oracle(n, reply, latencyMs);
  const usage = usageOf(reply);
  return {
    itemId,
    input: { variables: { n: String(n) }, messages: [], expected: expectedOf(n) },
    status: 'ok',
    output: { text: reply.say ?? '', toolCalls: reply.call ? [reply.call] : [], finishReason: reply.call ? 'tool_calls' : 'stop' },
    scores: graders.map((grader) => ({
      grader,
      score: scores[grader],
      passed: scores[grader] >= thresholdOf(grader),
      reason: expect.any(String),
    })),
    passed: graders.every((grader) => scores[grader] >= thresholdOf(grader)),
    score: meanOf(scores, graders),
    error: null,
    logId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    costUsd: usage.completion_tokens,
    latencyMs,
  };
}

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
export const sumOf = (values: number[]) => values.reduce((a, b) => a + b, 0);
export const byItemId = (a: { itemId: string }, b: { itemId: string }) => a.itemId.localeCompare(b.itemId);

/**
 * A finished run as GET /v2/evals/runs/{id} shows it has the totals of the items it lists, and the
 * stored totals (eval_runs, eval_run_grader_totals) are the sums over the rows of eval_run_items.
 */
export async function expectTotalsOfItems(t: TestApp, projectId: string, run: any, items: any[], graders = GRADER_NAMES) {
  const byGrader = graders.map((name) => {
    const scores = items.map((item) => item.scores.find((s: any) => s.grader === name));
    const passed = scores.filter((s) => s.passed).length;
    const meanScore = round6(sumOf(scores.map((s) => s.score)) / items.length);
    return { name, threshold: thresholdOf(name), graded: items.length, passed, meanScore, passRate: round6(passed / items.length) };
  });
  expect(run).toMatchObject({
    progress: { total: items.length, completed: items.length, errored: 0, passed: items.filter((item) => item.passed).length },
    usage: {
      promptTokens: sumOf(items.map((item) => item.promptTokens)),
      completionTokens: sumOf(items.map((item) => item.completionTokens)),
      costUsd: sumOf(items.map((item) => item.costUsd)),
      meanLatencyMs: Math.round(sumOf(items.map((item) => item.latencyMs)) / items.length),
    },
    graders: byGrader,
  });
  const where = 'WHERE project_id = $1 AND run_id = $2';
  const rows = await t.dataSource.query(`SELECT item_id, passed, score, scores FROM eval_run_items ${where}`, [projectId, run.id]);
  expect(rows.map((row: any) => [row.item_id, row.passed, row.score]).sort()).toEqual(
    items.map((item) => [item.itemId, item.passed, item.score]).sort(),
  );
  const totals = await t.dataSource.query(`SELECT grader, graded, passed, score_sum FROM eval_run_grader_totals ${where}`, [
    projectId,
    run.id,
  ]);
  const fromRows = graders.map((grader) => {
    const scores = rows.map((row: any) => row.scores.find((s: any) => s.grader === grader));
    return [grader, rows.length, scores.filter((s: any) => s.passed).length, round6(sumOf(scores.map((s: any) => s.score)))];
  });
  expect(totals.map((row: any) => [row.grader, row.graded, row.passed, round6(row.score_sum)]).sort()).toEqual(fromRows.sort());
  expect(byGrader.map((g) => [g.name, g.graded, g.passed, g.meanScore]).sort()).toEqual(
    fromRows.map(([grader, graded, passed, sum]) => [grader, graded, passed, round6((sum as number) / items.length)]).sort(),
  );
  const [stored] = await t.dataSource.query(
    'SELECT status, completed_items, errored_items, passed_items, total_items FROM eval_runs WHERE project_id = $1 AND id = $2',
    [projectId, run.id],
  );
  const passedRows = rows.filter((row: any) => row.passed).length;
  expect(stored).toEqual({
    status: run.status,
    completed_items: rows.length,
    errored_items: 0,
    passed_items: passedRows,
    total_items: rows.length,
  });
}

// ---- API helpers ----

/** Every row of a keyset-paged list (`after` = the previous page's last_id). */
export async function walk<T = any>(api: Client, path: string, limit = 100): Promise<T[]> {
  const rows: T[] = [];
  let after: string | null = null;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.get(`${path}${sep}limit=${limit}${after ? `&after=${after}` : ''}`);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    rows.push(...res.body.data);
    if (!res.body.has_more) return rows;
    after = res.body.last_id;
  }
}

/** Polls a run until its status is one of `statuses`. */
export async function waitForRun(api: Client, id: string, statuses = ['completed', 'cancelled', 'failed'], timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/v2/evals/runs/${id}`);
    if (res.status !== 200) throw new Error(`run ${id}: ${res.status} ${res.text}`);
    if (statuses.includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${res.body.status}: ${JSON.stringify(res.body.progress)}`);
    await sleep(25);
  }
}

/** Starts a run (200) and waits for it to end. */
export async function runToEnd(api: Client, body: object) {
  const created = await api.post('/v2/evals/runs', body);
  if (created.status !== 200) throw new Error(`run: ${created.status} ${created.text}`);
  return waitForRun(api, created.body.id);
}
