import type { Behaviour, FakeUpstream, RecordedRequest } from '../../test/fakes/fake-openai-upstream';
import { openaiChunks, openaiCompletion, openaiError, openaiJson, openaiStream } from '../../test/fakes/fake-openai-upstream';
import { startFakeUpstream } from '../../test/fakes/fake-upstream';
import { evalAnswer, STALLED_MODEL } from './showcase-evals';
import { orderAnswer } from './showcase-experiments';

/**
 * The realistic project the screenshots of the README and docs/console.md show (issue #39): a
 * coffee subscription shop's support prompt (two versions, deployed) and chat assistant, on an
 * OpenAI-compatible provider that is a scripted fake upstream (test/fakes) answering each question
 * with a plausible, canned answer. The walkthrough's markup probes stay on the demo prompt, whose
 * screens are checked (axe, no script ran) but not pictured.
 */
export const COMPANY = 'Larkspur Coffee';
export const SUPPORT_PROMPT = 'support-reply';
export const SUPPORT_CHAT = 'support-chat';

interface Exchange {
  question: string;
  answer: string;
}

const V1_SYSTEM = "You are the customer-support assistant of {{company}}.\nAnswer the customer's question politely.";
/** Version 2's template: it names the customer and their plan, and bounds the answer. */
export const V2_SYSTEM = [
  'You are the customer-support assistant of {{company}}.',
  'The customer is {{customer_name}}, on the {{plan}} plan.',
  'Answer in at most three short sentences, in a friendly tone.',
  'Never promise a refund: offer to hand the case to a colleague instead.',
].join('\n');
const CHAT_SYSTEM =
  'You are the chat assistant of {{company}}, a coffee subscription shop. Keep answers short and friendly; ask before changing an order.';

/** Calls of the support prompt in production, oldest first: the newest is the log the screenshot shows. */
const TICKETS: Array<Exchange & { variables: Record<string, string>; metadata: Record<string, string> }> = [
  {
    variables: { customer_name: 'Priya Natarajan', plan: 'Pro' },
    metadata: { customer: 'cus_2291', channel: 'email', ticket: 'T-20417' },
    question: 'Hi, I was charged twice for my March subscription. Could you refund one of the charges?',
    answer:
      "Sorry about the double charge, Priya! I can't issue refunds myself, so I've passed your case to a colleague in billing. They will get back to you within one business day.",
  },
  {
    variables: { customer_name: 'Jonas Weber', plan: 'Standard' },
    metadata: { customer: 'cus_1873', channel: 'chat', ticket: 'T-20422' },
    question: "Can I pause my subscription while I'm travelling in August?",
    answer:
      'Of course, Jonas! Go to Account → Subscription and choose "Pause" for up to three months. Your deliveries restart automatically on the date you pick.',
  },
  {
    variables: { customer_name: 'Maya Chen', plan: 'Pro' },
    metadata: { customer: 'cus_1042', channel: 'email', ticket: 'T-20431' },
    question: "Hi! My grinder (order #4812) was due yesterday, but the tracking hasn't moved since Monday. Can you check?",
    answer:
      "Sorry for the wait, Maya! Order #4812 is held at the carrier's depot and is now due on Thursday. If it hasn't arrived by Friday, reply to this email and we'll send a replacement right away.",
  },
];
/** The newest production call of the support prompt: the log the screenshot shows. */
export const NEWEST_TICKET = TICKETS[TICKETS.length - 1];

/** What the playground screenshot runs on version 2 (not saved). */
export const PLAYGROUND_RUN: Exchange & { variables: Record<string, string> } = {
  variables: { company: COMPANY, customer_name: 'Lena Fischer', plan: 'Standard' },
  question: 'Do you ship to Switzerland? And how long does delivery take?',
  answer:
    'Yes, Lena, we ship to Switzerland! Orders arrive in four to six working days, and customs fees are already included in the price you see at checkout.',
};

/** The chat assistant's thread, turn by turn. */
export const CHAT: Exchange[] = [
  {
    question: 'Hi! Can I switch my subscription from whole beans to ground coffee?',
    answer: 'Happy to help! Which grind would you like: espresso, filter or French press?',
  },
  {
    question: 'Filter, please, starting with the next delivery.',
    answer: 'Done! From your next delivery on, your coffee will be ground for filter. Is there anything else I can help with?',
  },
];

export const THREAD_METADATA = { customer: 'cus_1042', channel: 'web-chat' };

const ANSWERS = new Map([...TICKETS, PLAYGROUND_RUN, ...CHAT].map((e) => [e.question, e.answer]));
const FALLBACK = 'Thanks for your message! A colleague from our support team will get back to you within one business day.';

/** About four characters a token, as OpenAI's tokenizers average on English text. */
const tokens = (text: string) => Math.ceil(text.length / 4);

function lastUserText(body: { messages?: Array<{ role: string; content: unknown }> }): string {
  const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

/** The fake model: the canned answer to the last user message, streamed word by word when asked. */
function answer(req: RecordedRequest): Behaviour {
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return openaiError(404, `No route ${req.method} ${req.path}`);
  if (req.body.model === STALLED_MODEL) return { type: 'hang' };
  const question = lastUserText(req.body);
  const text =
    evalAnswer(question, req.body.model as string) ?? orderAnswer(question, req.body.model as string) ?? ANSWERS.get(question) ?? FALLBACK;
  const messages: Array<{ content: unknown }> = req.body.messages ?? [];
  const usage = {
    prompt_tokens: messages.reduce((sum, m) => sum + 4 + tokens(typeof m.content === 'string' ? m.content : ''), 0),
    completion_tokens: tokens(text),
  };
  const model = req.body.model as string;
  if (!req.body.stream) return openaiJson(openaiCompletion({ content: text, model, usage }));
  const content = text.split(/(?<=\S)(?=\s)/).filter(Boolean);
  return openaiStream(openaiChunks({ content, model, usage: req.body.stream_options?.include_usage ? usage : null }), { delayMs: 15 });
}

/** The fake provider: its `url` ends in /v1, as an OpenAI base URL does. */
export async function startShowcaseUpstream(): Promise<FakeUpstream> {
  const fake = await startFakeUpstream(answer);
  return { ...fake, url: `${fake.url}/v1` };
}

/**
 * Seeds the project of `key` through the API: the provider `openai` (the fake), the support
 * prompt's two versions (version 1 deployed to production first, then version 2 to preview, staging
 * and production), three streamed calls of it in production with metadata, and a two-turn thread of
 * the chat assistant. Returns the thread's id.
 */
export async function seedShowcase(baseUrl: string, key: string, upstreamUrl: string): Promise<{ threadId: string }> {
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text;
  };
  const invoke = (slug: string, body: object) => call('POST', `/default/default/${slug}/production`, { ...body, stream: true });

  await call('POST', '/v2/provider-credentials', { name: 'openai', type: 'openai', baseUrl: upstreamUrl, apiKey: 'sk-showcase' });
  await call('POST', '/v2/prompts', { slug: SUPPORT_PROMPT, kind: 'prompt' });
  await call('POST', `/v2/prompts/${SUPPORT_PROMPT}/versions`, {
    provider: 'openai',
    model: 'gpt-4o',
    parameters: { temperature: 0.7 },
    variables: { company: COMPANY },
    template: [{ role: 'system', content: V1_SYSTEM }],
    message: 'First version',
  });
  await call('POST', `/v2/prompts/${SUPPORT_PROMPT}/deployments`, { environment: 'production', version: 1 });
  await call('POST', `/v2/prompts/${SUPPORT_PROMPT}/versions`, {
    provider: 'openai',
    model: 'gpt-4o-mini',
    parameters: { temperature: 0.3, max_tokens: 300 },
    variables: { company: COMPANY, customer_name: 'there', plan: 'Standard' },
    template: [{ role: 'system', content: V2_SYSTEM }],
    message: 'Address the customer by name; shorter answers, no refund promises; gpt-4o-mini',
  });
  for (const environment of ['preview', 'staging', 'production'])
    await call('POST', `/v2/prompts/${SUPPORT_PROMPT}/deployments`, { environment, version: 2 });
  for (const ticket of TICKETS)
    await invoke(SUPPORT_PROMPT, {
      variables: ticket.variables,
      metadata: ticket.metadata,
      messages: [{ role: 'user', content: ticket.question }],
    });

  await call('POST', '/v2/prompts', { slug: SUPPORT_CHAT, kind: 'assistant' });
  await call('POST', `/v2/prompts/${SUPPORT_CHAT}/versions`, {
    provider: 'openai',
    model: 'gpt-4o-mini',
    parameters: { temperature: 0.5 },
    variables: { company: COMPANY },
    template: [{ role: 'system', content: CHAT_SYSTEM }],
  });
  await call('POST', `/v2/prompts/${SUPPORT_CHAT}/deployments`, { environment: 'production' });
  // A thread made with the customer's metadata (what the threads screen filters by), then its turns.
  const threadId = (JSON.parse(await call('POST', '/v2/threads', { metadata: THREAD_METADATA })) as { id: string }).id;
  for (const turn of CHAT)
    await invoke(SUPPORT_CHAT, { threadId, metadata: THREAD_METADATA, messages: [{ role: 'user', content: turn.question }] });
  return { threadId };
}
