import { Langtail } from 'langtail';
import OpenAI from 'openai';

import type { TestProject } from './factories';
import { invokePath, requestLogRows } from './invoke-factories';
import type { TestApp } from './test-app';

/**
 * The four surfaces issue 42's Done-when names, each called through its own client as an
 * application would (docs/experiments.md, "Splits"): the spec's invoke route, `/v1/chat/completions`
 * and `/v1/responses` with the official `openai` client, and the `langtail` SDK's `prompts.invoke`.
 */
export const SURFACES = ['spec', 'chat', 'responses', 'langtail'] as const;
export type Surface = (typeof SURFACES)[number];

export interface SurfaceCall {
  slug: string;
  /** An assistant's thread to continue; on /v1/responses the conversation (a new one when absent). */
  thread?: string;
  /** The caller's `user` field; the spec routes (and so the SDK) also take it as `metadata.user` (`userIn: 'metadata'`). */
  user?: string;
  userIn?: 'body' | 'metadata';
  metadata?: Record<string, string>;
  /** A version to pin: `?v=N`, `<slug>@production:N`, the SDK's `version`. */
  pin?: number;
  /** Streamed (server-sent events, read to the end). */
  stream?: boolean;
}

/** What the answer says: the version that served it, the thread (or conversation) and the log. */
export interface Served {
  version: number;
  thread: string | null;
  logId: string;
}

export type SurfaceClient = (call: SurfaceCall) => Promise<Served>;

const VERSION = 'x-parley-version';
const messages = [{ role: 'user' as const, content: 'hi' }];

function servedOf(headers: Headers, thread: string | null = headers.get('x-parley-thread-id')): Served {
  const version = Number(headers.get(VERSION));
  const logId = headers.get('x-parley-log-id');
  if (!Number.isInteger(version) || version < 1 || !logId)
    throw new Error(`no ${VERSION} or x-parley-log-id: ${headers.get(VERSION)}, ${logId}`);
  return { version, thread, logId };
}

/** One caller per surface, on `base` with the project's key; no retries (a test sees the first answer). */
export function splitSurfaces(base: string, p: TestProject): Record<Surface, SurfaceClient> {
  const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
  const langtail = new Langtail({ apiKey: p.key, baseURL: base });
  const userFields = (call: SurfaceCall) => (call.user !== undefined ? { user: call.user } : {});
  // On the spec routes: `user` in the body, or as metadata.user.
  const specUser = (call: SurfaceCall) => {
    const inMetadata = call.userIn === 'metadata' && call.user !== undefined;
    const metadata = { ...call.metadata, ...(inMetadata ? { user: call.user! } : {}) };
    return { ...(inMetadata ? {} : userFields(call)), ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
  };
  const model = (call: SurfaceCall) => `${call.slug}@production${call.pin ? `:${call.pin}` : ''}`;
  return {
    spec: async (call) => {
      const res = await fetch(`${base}${invokePath(p, call.slug)}${call.pin ? `?v=${call.pin}` : ''}`, {
        method: 'POST',
        headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          messages,
          ...specUser(call),
          ...(call.thread ? { threadId: call.thread } : {}),
          ...(call.stream ? { stream: true } : {}),
        }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`spec invoke: ${res.status} ${text}`);
      return servedOf(res.headers);
    },
    chat: async (call) => {
      const body = {
        model: model(call),
        messages,
        ...userFields(call),
        ...(call.metadata ? { metadata: call.metadata } : {}),
        // Parley's field for an assistant's thread (docs/openai-compatibility.md), sent as an extra body field.
        ...(call.thread ? ({ thread_id: call.thread } as object) : {}),
      };
      if (!call.stream) return servedOf((await openai.chat.completions.create(body).withResponse()).response.headers);
      const { data, response } = await openai.chat.completions.create({ ...body, stream: true }).withResponse();
      for await (const chunk of data) void chunk;
      return servedOf(response.headers);
    },
    responses: async (call) => {
      const conversation = call.thread ?? (await openai.conversations.create()).id;
      const body = {
        model: model(call),
        input: 'hi',
        conversation,
        ...userFields(call),
        ...(call.metadata ? { metadata: call.metadata } : {}),
      };
      if (!call.stream) return servedOf((await openai.responses.create(body).withResponse()).response.headers, conversation);
      const { data, response } = await openai.responses.create({ ...body, stream: true }).withResponse();
      for await (const event of data) void event;
      return servedOf(response.headers, conversation);
    },
    langtail: async (call) => {
      const params = {
        prompt: call.slug,
        environment: 'production' as const,
        messages,
        ...specUser(call),
        ...(call.thread ? { threadId: call.thread } : {}),
        ...(call.pin ? { version: String(call.pin) } : {}),
      };
      if (!call.stream) return servedOf((await langtail.prompts.invoke(params)).httpResponse.headers as Headers);
      let raw: Response | undefined;
      const stream = await langtail.prompts.invoke({ ...params, stream: true }, { onRawResponse: (res) => (raw = res) });
      for await (const chunk of stream) void chunk;
      return servedOf(raw!.headers);
    },
  };
}

/** Runs `count` calls, `concurrency` at a time, in order of their index; answers what each returned. */
export async function pooled<T>(count: number, concurrency: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await call(i);
      }
    }),
  );
  return results;
}

/** The body of a split deployment in production: its versions, the control first, and their weights. */
export const splitBody = (versions: number[], weights: number[], more: object = {}) => ({
  environment: 'production',
  split: versions.map((version, i) => ({ version, weight: weights[i] })),
  ...more,
});

/** The calls, in order, on each surface (the four side by side). */
export async function onEverySurface(clients: Record<Surface, SurfaceClient>, calls: SurfaceCall[]): Promise<Served[]> {
  const bySurface = await Promise.all(
    SURFACES.map(async (surface) => {
      const served: Served[] = [];
      for (const call of calls) served.push(await clients[surface](call));
      return served;
    }),
  );
  return bySurface.flat();
}

/**
 * For 20 keys in turn, the calls `call` makes with that key must all be served by one arm, and on
 * a 50/50 split the keys must reach both arms (all 20 on one by chance: 2 in 2^20). Answers every call.
 */
export async function oneArmPerKey(call: (key: string, k: number) => Promise<Served[]>): Promise<Served[]> {
  const arms = new Set<number>();
  const served: Served[] = [];
  for (let k = 0; k < 20; k += 1) {
    const key = `key-${k}`;
    const calls = await call(key, k);
    expect([key, calls.map((s) => s.version)]).toEqual([key, calls.map(() => calls[0].version)]);
    arms.add(calls[0].version);
    served.push(...calls);
  }
  expect(arms).toEqual(new Set([1, 2]));
  return served;
}

/** Each answer's request log names the arm its `x-parley-version` named. */
export async function expectArmsLogged(t: TestApp, projectId: string, served: Served[]): Promise<void> {
  const logged = new Map((await requestLogRows(t, projectId)).map((row) => [row.id, row.version]));
  expect(served.filter((s) => logged.get(s.logId) !== s.version)).toEqual([]);
}
