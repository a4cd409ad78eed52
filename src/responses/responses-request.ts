import type { ChatMessage } from '../common/chat';
import { openaiError } from '../common/errors';
import { parseInputItem } from '../conversations/conversation-inputs';
import { itemsToChatMessages } from '../conversations/items-to-chat';
import type { InvokeTarget, ResolvedTarget } from '../invocation/invocation.types';
import { targetOfModel } from '../openai/model-name';
import { ResponsesBody } from './responses.schema';

export const badParam = (param: string, message: string) => openaiError(400, message, { param });

type DeploymentTarget = Extract<InvokeTarget, { type: 'deployment' }>;

/**
 * `prompt.id` (`<slug>[@environment]`, `prompt.version` pinning), else `model` (as on
 * /v1/chat/completions). `model` beside `prompt` is not the target: see modelBesidePrompt.
 */
export function targetOf(body: ResponsesBody): { target: InvokeTarget; name: string } {
  if (body.prompt) {
    const match = /^([^@:/]+)(?:@([^@:/]+))?$/.exec(body.prompt.id);
    if (!match) throw badParam('prompt.id', "'prompt.id' must be '<slug>' or '<slug>@<environment>'.");
    const version = body.prompt.version != null ? Number(body.prompt.version) : undefined;
    return {
      target: { type: 'deployment', slug: match[1], environment: match[2] ?? 'production', ...(version ? { version } : {}) },
      name: body.prompt.id,
    };
  }
  if (!body.model) throw badParam('model', "Missing required parameter: 'model' (or 'prompt').");
  const target = targetOfModel(body.model);
  if (!target)
    throw openaiError(404, `The model '${body.model}' does not exist or you do not have access to it.`, {
      param: 'model',
      code: 'model_not_found',
    });
  return { target, name: body.model };
}

/**
 * `model` beside `prompt`, as OpenAI takes it: the request's model instead of the prompt's. In
 * Parley's names (docs/openai-conversations.md, "Responses"): `<provider>/<model>` on the provider
 * of the prompt's version overrides the version's model (its template, settings and tools stay),
 * as the spec invoke body's `model` does; a deployment name is accepted when it names the prompt's
 * own deployment (an SDK that always sends `model`) and changes nothing. Anything else is a 400.
 * Returns the model to call instead of the version's, if any.
 */
export function modelBesidePrompt(model: string, prompt: DeploymentTarget, resolved: ResolvedTarget): string | undefined {
  const provider = resolved.provider.name;
  const named = targetOfModel(model);
  if (named?.type === 'provider') {
    if (named.provider === provider) return named.model;
    throw badParam(
      'model',
      `The prompt '${prompt.slug}' runs on the provider '${provider}': with 'prompt', 'model' may name a model of that provider ('${provider}/<model>'), not of '${named.provider}'.`,
    );
  }
  if (named && named.slug === prompt.slug && named.environment === prompt.environment && named.version === prompt.version) return undefined;
  throw badParam(
    'model',
    `'model' names another deployment than 'prompt' ('${prompt.slug}@${prompt.environment}'): omit it, or give '${provider}/<model>' to run the prompt on another model.`,
  );
}

/** `input` as the chat messages of this turn: a string is one user message. */
export function inputMessagesOf(body: ResponsesBody): ChatMessage[] {
  if (body.input === undefined) return [];
  if (typeof body.input === 'string') return [{ role: 'user', content: body.input } as ChatMessage];
  const items = body.input.map((raw, i) => parseInputItem(raw, ['input', i]));
  return itemsToChatMessages(items) as unknown as ChatMessage[];
}

export const variablesOf = (body: ResponsesBody): Record<string, string> =>
  Object.fromEntries(Object.entries(body.prompt?.variables ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : v.text]));

export const conversationIdOf = (body: ResponsesBody): string | null =>
  body.conversation == null ? null : typeof body.conversation === 'string' ? body.conversation : body.conversation.id;
