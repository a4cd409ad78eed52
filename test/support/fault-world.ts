import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

import { startFakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream';
import { FakeUpstream, startFakeOpenAIUpstream } from '../fakes/fake-openai-upstream';
import { Fault, faultBehaviour, refusedUrl, WireFormat } from '../fakes/fault-modes';
import { createProject, TestProject } from './factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, listen } from './invoke-factories';
import { createTestApp, TestApp } from './test-app';

/**
 * The routing fault suite's world (issue 43, docs/testing.md): one app, one project, the fake
 * OpenAI-format and Anthropic-format upstreams as providers `up` and `claude`, and `dead` /
 * `dead-claude` on ports where nothing listens. Each case deploys a version of its own whose
 * routing block puts the faulty fake first and the built-in `local/echo` second.
 */

/** A stream that sends no content for this long moves on to the next target. */
export const FIRST_TOKEN_TIMEOUT_MS = 300;
/** How long an upstream may stay silent (the hang before headers, a plain call's stalled body). */
export const PROVIDER_TIMEOUT_MS = 500;
/** What the caller asks; `local/echo` answers it word for word (2 output tokens). */
export const USER_TEXT = 'hello there';

export interface FaultWorld {
  t: TestApp;
  p: TestProject;
  base: string;
  openai: OpenAI;
  anthropic: Anthropic;
  fakes: Record<WireFormat, FakeUpstream>;
  /** The raw body of the last answer the SDK clients read (to see whether a stream ended cleanly). */
  lastRaw: () => Promise<string>;
  close: () => Promise<void>;
}

export interface FaultCase {
  slug: string;
  format: WireFormat;
  fault: Fault;
  /** The faulty target (target 0). */
  provider: string;
  model: string;
  /** The fake's request count before the call. */
  requestsBefore: number;
}

export async function startFaultWorld(env: Record<string, string> = {}): Promise<FaultWorld> {
  const fakes = { openai: await startFakeOpenAIUpstream(), anthropic: await startFakeAnthropicUpstream() };
  const t = await createTestApp({
    ...INVOKE_APP_ENV,
    PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
    // One request per target: the fakes count exactly what the router sent.
    PROVIDER_MAX_RETRIES: '0',
    RESPONSES_EVENT_FLUSH_MS: '20',
    ...env,
  });
  const base = await listen(t);
  const p = await createProject(t);
  await addProviderCredential(t, p, { name: 'up', type: 'openai', baseUrl: fakes.openai.url, apiKey: 'sk-up' });
  await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: fakes.anthropic.url, apiKey: 'sk-ant' });
  await addProviderCredential(t, p, { name: 'dead', type: 'openai', baseUrl: `${await refusedUrl()}/v1`, apiKey: 'sk-dead' });
  await addProviderCredential(t, p, { name: 'dead-claude', type: 'anthropic', baseUrl: await refusedUrl(), apiKey: 'sk-dead' });
  // Both SDKs read through this fetch, which keeps a copy of each answer's body.
  let raw: Promise<string> = Promise.resolve('');
  const recording = async (url: string | URL | Request, init?: RequestInit) => {
    const res = await fetch(url, init);
    raw = res
      .clone()
      .text()
      .catch(() => '');
    return res;
  };
  return {
    t,
    p,
    base,
    openai: new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0, fetch: recording }),
    anthropic: new Anthropic({ baseURL: base, apiKey: p.key, maxRetries: 0, fetch: recording }),
    fakes,
    lastRaw: () => raw,
    close: async () => {
      await t.close();
      await fakes.openai.close();
      await fakes.anthropic.close();
    },
  };
}

/** The credential names of the faulty target: the fake of each wire format, or a port where nothing listens. */
const PROVIDERS = { openai: { fake: 'up', refused: 'dead' }, anthropic: { fake: 'claude', refused: 'dead-claude' } } as const;

let serial = 0;

/**
 * Deploys a version of its own (an assistant, so the surfaces that keep threads keep one) routed
 * to the faulty target, then `local/echo`, and queues the fault on its fake. The model name is the
 * case's own, so one case's failures never cool down another's target (src/routing/target-health.ts).
 */
export async function arrangeCase(w: FaultWorld, format: WireFormat, fault: Fault): Promise<FaultCase> {
  serial += 1;
  const slug = `rf-${serial}-${fault.replace(/_/g, '-')}`;
  const provider = PROVIDERS[format][fault === 'refused' ? 'refused' : 'fake'];
  const model = `m-${slug}`;
  await deploy(w.t, w.p, {
    slug,
    kind: 'assistant',
    routing: {
      strategy: 'priority',
      targets: [
        { provider, model },
        { provider: 'local', model: 'echo' },
      ],
      firstTokenTimeoutMs: FIRST_TOKEN_TIMEOUT_MS,
    },
  });
  const fake = w.fakes[format];
  fake.clearNext();
  if (fault !== 'refused') fake.setNext(faultBehaviour(format, fault));
  return { slug, format, fault, provider, model, requestsBefore: fake.requests.length };
}
