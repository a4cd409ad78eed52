import type { OpenAPIObject } from '@nestjs/swagger';

import { zodDtoSchemas } from '../common/validation/zod-dto';
import { DEMO_ASSISTANT, DEMO_ENVIRONMENT, DEMO_PROMPT } from './demo-seed';

/** What each tag of the Swagger UI is for; the UI shows these above each group. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Invoke:
    'Call a deployed prompt or assistant: `POST /{workspace}/{project}/{slug}/{environment}`. The first start seeds ' +
    `\`${DEMO_PROMPT}\` and \`${DEMO_ASSISTANT}\` in workspace \`default\`, project \`default\`, deployed to \`${DEMO_ENVIRONMENT}\`, on the built-in ` +
    '`local` provider (model `echo` repeats your last message). Assistants keep a thread: its id comes back in `x-parley-thread-id`.',
  Threads: 'Conversations stored by Parley; assistants append to them. Soft-deleted, cursor-paginated (`after`).',
  'Thread messages': 'The messages of a thread: added by invokes (a turn = your messages + the reply) or directly.',
  'Registry: prompts, versions, deployments':
    'Prompts and assistants, their immutable numbered versions, and which version each environment runs.',
  'Registry: environments': 'Deployment targets of a project (`preview`, `staging`, `production` by default).',
  'Registry: provider credentials':
    'Named LLM providers (OpenAI-compatible or Anthropic) with a base URL and a key stored encrypted, or read from a server variable (docs/providers.md).',
  'Registry: apply and export': 'A whole project as a parley.yaml: apply it declaratively, export it back.',
  'Request logs': 'One row per invoke: status, latency, tokens, version; filtered and paginated.',
  Feedback:
    'Scores on calls (a request log, a thread, a stored response): a number, true/false or a category per name, one per key, replaced when sent again; summarized per version with 95 % confidence intervals (docs/experiments.md).',
  Experiments:
    "Per-arm results of an environment's deployment (a split's versions side by side: calls, error rate, latency, tokens, cost per call, feedback) with a verdict per arm against the control when the evidence allows (docs/experiments.md).",
  Usage:
    'Calls, tokens by kind (uncached input, cache read, cache write, reasoning, output), cost in USD and latency per hour or day, ' +
    'from hourly rollups written with the request logs (docs/usage.md). A project key reports on its project; the admin key on any. ' +
    "GET /v2/usage/budgets: the project's budgets and spend, for a project key.",
  'OpenAI: usage and costs':
    "OpenAI's organization usage (`/v1/organization/usage/completions`) and costs (`/v1/organization/costs`) shapes over Parley's rollups, for dashboards written for OpenAI (docs/usage.md). Admin key.",
  'Admin: prices':
    "A project's price overrides per provider and model (USD per million tokens); every other model is priced from the @pydantic/genai-prices table (docs/usage.md). Admin key.",
  'Admin: workspaces, projects, API keys': 'Operator endpoints; they take the admin key.',
  'Admin: members and roles':
    "People's roles (viewer, editor, deployer, admin) in a workspace or one project, given by e-mail before their first sign-in too; roles of the identity provider's groups; instance admins. The admin keys, a workspace's admins, and for a project's own members a project admin or a key with `members:manage` (docs/security.md, \"Roles\").",
  'Admin: limits':
    "Requests per minute, concurrent invokes, tokens per day and budgets in USD per UTC day and month, per project and per key; over a limit or an exhausted budget an invoke is 429 with Retry-After (docs/security.md, docs/usage.md). The budgets' state: limit, spent, remaining, reset. Admin key.",
  'langtail SDK':
    'The two read calls of the langtail SDK (`prompts.get`, `prompts.listDeployments`); invoke and threads use the endpoints above.',
  Operations: 'Liveness, readiness and Prometheus metrics; no API key.',
  'OpenAI: Conversations':
    "OpenAI's Conversations API (`/v1/conversations`) over Parley's threads: the official `openai` SDK works with a project key (docs/openai-conversations.md).",
  'OpenAI-compatible':
    "OpenAI's chat completions and models under `/v1`: point the official `openai` SDK at Parley (docs/openai-compatibility.md).",
  Evaluations:
    "Datasets, graders, experiment runs and their comparison; an environment's deploy gate is under Registry: environments (docs/evals.md).",
  'Anthropic-compatible':
    "Anthropic's Messages API (`/v1/messages`, `/v1/messages/count_tokens`) on every provider: point the official `@anthropic-ai/sdk` at Parley with a project key (docs/anthropic-compatibility.md).",
  'OpenAI: Responses':
    "OpenAI's Responses API (`/v1/responses`) on every provider, with stored responses, `conversation` and `previous_response_id`, background responses, cancel and resumable streams (docs/openai-conversations.md).",
  Webhooks:
    "The project's webhooks: background responses' final events (`response.completed`, `.failed`, `.cancelled`, `.incomplete`), signed in the Standard Webhooks format, retried with backoff (docs/openai-conversations.md).",
  'Console sessions':
    'The web console at `/console` exchanges a key once for a session cookie (HttpOnly, SameSite=Strict); requests with the cookie act as that key, and a state-changing one needs the `X-Parley-CSRF` header (docs/console.md).',
  'Audit trail':
    'Every change to prompts, versions, deployments, environments, providers, keys, scopes and limits: who (key id and name), before and after (never a secret), when and the request id. Append-only (docs/security.md).',
  'Project settings':
    "A project's settings; the first says whether `/v1/embeddings` calls keep their input texts in the request logs (docs/embeddings.md).",
  Import: 'Bring conversations from other systems (an Assistants API export) into a project, idempotently (docs/import.md).',
};

const NAMED_ERROR = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' } },
};
const named = (description: string, error: string, message: string) => ({
  description,
  content: { 'application/json': { schema: NAMED_ERROR, example: { error, message } } },
});

/** The invoke endpoints' failures besides 400 (body) and 404 (deployment, thread), each with its real body. */
const INVOKE_ERRORS: Record<string, object> = {
  '401': named('Missing or invalid API key', 'Unauthorized', 'Invalid API key'),
  '403': named('The key belongs to another project than the path names', 'Forbidden', 'API key does not belong to this project'),
  '413': { description: 'Body larger than BODY_LIMIT' },
  '429': named(
    'The provider rate-limited the call (after retries); `Retry-After` is passed on when the provider sent one',
    'Too Many Requests',
    'Provider rate limit exceeded',
  ),
  '502': named(
    'The provider failed or could not be reached, or the version names a provider this project no longer has',
    'Bad Gateway',
    'The provider call failed',
  ),
  '503': named('The database is unavailable; retry after `Retry-After`', 'Service Unavailable', 'Database unavailable'),
  '504': named('The provider did not answer within PROVIDER_TIMEOUT_MS', 'Gateway Timeout', 'The provider did not respond in time'),
};

const INVOKE_EXAMPLES = {
  prompt: {
    summary: `${DEMO_PROMPT}: variables fill the template, messages follow it`,
    value: { variables: { name: 'Ada' }, messages: [{ role: 'user', content: 'Hello!' }], temperature: 0.2 },
  },
  assistant: {
    summary: `${DEMO_ASSISTANT}: continue a thread (omit threadId to start one)`,
    value: { threadId: '01929a3e-8f4b-7c3d-9e2f-5a6b7c8d9e0f', messages: [{ role: 'user', content: 'It is order 42' }] },
  },
  stream: {
    summary: 'Server-sent events of chat.completion.chunk, then [DONE]',
    value: { stream: true, messages: [{ role: 'user', content: 'Hi there' }] },
  },
};

type Operation = {
  security?: object[];
  parameters?: { name: string; in: string; example?: unknown }[];
  responses: Record<string, unknown>;
  requestBody?: { content?: Record<string, { examples?: object }> };
};

/**
 * What decorators cannot say well, added to the generated document: the demo seed as examples of the
 * invoke path parameters and bodies, and every error status an invoke answers with (core's
 * decorators list 400/404/502). Existing entries are kept.
 */
export function enrichDocument(document: OpenAPIObject): OpenAPIObject {
  const paramExamples: Record<string, string> = {
    workspace: 'default',
    project: 'default',
    slug: DEMO_PROMPT,
    environment: DEMO_ENVIRONMENT,
  };
  for (const path of ['/{workspace}/{project}/{slug}/{environment}', '/project-prompt/{slug}/{environment}']) {
    const operation = (document.paths[path] as Record<string, Operation> | undefined)?.post;
    if (!operation) continue;
    for (const parameter of operation.parameters ?? [])
      if (parameter.in === 'path' && paramExamples[parameter.name]) parameter.example ??= paramExamples[parameter.name];
    for (const [status, response] of Object.entries(INVOKE_ERRORS)) operation.responses[status] ??= response;
    const json = operation.requestBody?.content?.['application/json'];
    if (json) json.examples ??= INVOKE_EXAMPLES;
  }
  // Every operation: a key-protected one can answer 401, a body-taking one 413, and any one that
  // reads the database 503 (the exception filter maps connection failures to it). Not under /v1,
  // whose errors take OpenAI's shape and are documented by their own modules.
  for (const [path, item] of Object.entries(document.paths)) {
    if (path.startsWith('/v1/')) continue;
    for (const operation of Object.values(item as Record<string, Operation>)) {
      if (!operation?.responses) continue;
      if (operation.security?.length) operation.responses['401'] ??= INVOKE_ERRORS['401'];
      if (operation.requestBody) operation.responses['413'] ??= INVOKE_ERRORS['413'];
      if (!['/health', '/metrics'].includes(path)) operation.responses['503'] ??= INVOKE_ERRORS['503'];
    }
  }
  // OpenAI's bodies are zod-backed DTO classes: their component is the schema zod validates with.
  for (const [name, schema] of zodDtoSchemas()) if (document.components?.schemas?.[name]) document.components.schemas[name] = schema;
  return document;
}
