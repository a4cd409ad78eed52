import { afterContent, Fault, FIRST_TOKEN, RETRY_AFTER_S } from '../fakes/fault-modes';
import type { Seen } from './fault-surfaces';
import { FaultCase, FaultWorld, USER_TEXT } from './fault-world';
import { sleep, threadMessageRows } from './invoke-factories';

type Attempt = {
  provider: string;
  model: string;
  status?: number | null;
  error?: string;
  reason?: string;
  latencyMs?: number;
  ttftMs?: number;
  inputTokens?: number;
  outputTokens?: number;
};

/** The routing `fallbackOn` reason each fault is (docs/routing.md, "What falls back"); a stream's stall is first_token_timeout. */
const REASONS: Record<Fault, string> = {
  server_error: 'server_error',
  rate_limit: 'rate_limit',
  refused: 'connection',
  hang: 'timeout',
  stall: 'timeout',
  malformed_first: 'server_error',
  error_event: 'server_error',
  cut: 'connection',
  malformed_after: 'server_error',
  error_after: 'server_error',
};

/** The case's one request log (its slug is its own), once written: the row and GET /v2/logs/{id}. */
async function logOf(w: FaultWorld, slug: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const rows: Array<Record<string, any>> = await w.t.dataSource.query(
      'SELECT * FROM request_logs WHERE project_id = $1 AND prompt_slug = $2 ORDER BY id',
      [w.p.projectId, slug],
    );
    if (rows.length > 0 && rows.every((row) => row.status !== null)) {
      expect(rows).toHaveLength(1);
      const api = await w.t.http().get(`/v2/logs/${rows[0].id}`).set('X-API-Key', w.p.key);
      expect(api.status).toBe(200);
      return { row: rows[0], attempts: api.body.attempts as Attempt[] };
    }
    if (Date.now() > deadline) throw new Error(`no finished request log for ${slug}: ${JSON.stringify(rows)}`);
    await sleep(20);
  }
}

/** GET /v2/usage for the case's prompt: its calls, errors and tokens. */
async function usageOf(w: FaultWorld, slug: string) {
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const res = await w.t.http().get('/v2/usage').query({ from, group_by: 'prompt' }).set('X-API-Key', w.p.key);
  expect(res.status).toBe(200);
  const rows = (res.body.data as Array<Record<string, any>>).filter((row) => row.prompt === slug);
  const sum = (pick: (row: Record<string, any>) => number) => rows.reduce((acc, row) => acc + pick(row), 0);
  return {
    calls: sum((r) => r.calls),
    errors: sum((r) => r.errors),
    input: sum((r) => r.tokens.uncachedInput + r.tokens.cacheRead + r.tokens.cacheWrite),
    output: sum((r) => r.tokens.output + r.tokens.reasoning),
  };
}

/** The roles of what the thread or conversation holds, in order. */
async function turnRoles(w: FaultWorld, seen: Seen): Promise<string[]> {
  if (seen.conversationId) {
    const items = await w.openai.conversations.items.list(seen.conversationId, { order: 'asc' });
    return items.data.map((item) => (item as { role: string }).role);
  }
  const rows = await threadMessageRows(w.t, w.p.projectId, seen.threadId!);
  return rows.filter((row) => !row.deleted_at).flatMap((row) => row.content.map((m: { role: string }) => m.role));
}

/**
 * What the caller, the log, usage and the thread show after one faulty call (issue 43):
 * - before content: one clean answer from `local/echo`, headers naming it and 2 attempts, a 200 log
 *   with both attempts, one call in usage with the billed attempts' tokens, one user + assistant turn;
 * - after content: the first token, then an explicit error and no clean end, a failed log of one
 *   attempt on the faulty target, one failed call in usage, and never a second assistant message.
 * `threads`: the surface keeps the assistant's thread (or a conversation) and says so.
 */
export async function expectFaultOutcome(w: FaultWorld, c: FaultCase, seen: Seen, stream: boolean, threads: boolean): Promise<void> {
  const cut = afterContent(c.fault, stream);
  const { row, attempts } = await logOf(w, c.slug);
  const usage = await usageOf(w, c.slug);

  if (!cut) {
    expect({ status: seen.status, text: seen.text, cleanEnd: seen.cleanEnd, error: seen.error }).toEqual({
      status: 200,
      text: USER_TEXT,
      cleanEnd: true,
      error: undefined,
    });
    if (seen.header) {
      expect(['x-parley-provider', 'x-parley-model', 'x-parley-attempts'].map((h) => seen.header!(h))).toEqual(['local', 'echo', '2']);
    }
    expect(row).toMatchObject({ status: 200, provider_name: 'local', model: 'echo', error: null });
    expect(attempts).toEqual([
      expect.objectContaining({ provider: c.provider, model: c.model, error: expect.any(String), latencyMs: expect.any(Number) }),
      expect.objectContaining({ provider: 'local', model: 'echo', status: 200, outputTokens: 2, latencyMs: expect.any(Number) }),
    ]);
    if (stream) expect(attempts[1].ttftMs).toEqual(expect.any(Number));
    // A 429's Retry-After is the faulty target's business: the next target answers without waiting for it.
    if (c.fault === 'rate_limit') expect(seen.elapsedMs).toBeLessThan(Number(RETRY_AFTER_S) * 1000);
    // An attempt's status is the one Parley would have answered with had it been the only one.
    if (c.fault === 'server_error' || c.fault === 'rate_limit') expect(attempts[0].status).toBe(c.fault === 'rate_limit' ? 429 : 502);
    // On a stream the first-token clock (300 ms) runs from the attempt's start, so it also ends a hang before headers.
    expect(attempts[0].reason).toBe(stream && (c.fault === 'stall' || c.fault === 'hang') ? 'first_token_timeout' : REASONS[c.fault]);
    expect(usage.errors).toBe(0);
  } else {
    expect(seen.status).toBe(200);
    expect(seen.text).toBe(FIRST_TOKEN);
    expect(seen.cleanEnd).toBe(false);
    expect(seen.error).toBeDefined();
    if (seen.header) {
      expect(['x-parley-provider', 'x-parley-model', 'x-parley-attempts'].map((h) => seen.header!(h))).toEqual([c.provider, c.model, '1']);
    }
    expect(row.status).toBeGreaterThanOrEqual(500);
    expect(row).toMatchObject({ provider_name: c.provider, model: c.model });
    expect(attempts).toEqual([expect.objectContaining({ provider: c.provider, model: c.model, error: expect.any(String) })]);
    expect(usage.errors).toBe(1);
  }
  // The call counts once; its tokens are those of the attempts that were billed.
  expect(usage.calls).toBe(1);
  expect(Number(row.output_tokens ?? 0)).toBe(usage.output);
  expect(usage.output).toBe(attempts.reduce((acc, a) => acc + (a.outputTokens ?? 0), 0));
  expect(usage.input).toBe(attempts.reduce((acc, a) => acc + (a.inputTokens ?? 0), 0));
  // The faulty target was asked once (a refused connection reaches no server).
  expect(w.fakes[c.format].requests.length - c.requestsBefore).toBe(c.fault === 'refused' ? 0 : 1);

  if (!threads) return;
  if (!seen.conversationId) expect(seen.threadId).toEqual(expect.any(String));
  const roles = await turnRoles(w, seen);
  if (!cut) expect(roles).toEqual(['user', 'assistant']);
  else {
    expect(roles.filter((role) => role === 'user').length).toBeLessThanOrEqual(1);
    expect(roles.filter((role) => role === 'assistant').length).toBeLessThanOrEqual(1);
  }
}
