import type { ChatMessage } from '../common/chat';
import { openaiError } from '../common/errors';
import { parseInputItem } from '../conversations/conversation-inputs';
import { itemsToChatMessages } from '../conversations/items-to-chat';
import type { InvokeTarget } from '../invocation/invocation.types';
import { targetOfModel } from '../openai/model-name';
import { ResponsesBody } from './responses.schema';

export const badParam = (param: string, message: string) => openaiError(400, message, { param });

/** `model` (as on /v1/chat/completions) or `prompt.id` (`<slug>[@environment]`, `prompt.version` pinning). */
export function targetOf(body: ResponsesBody): { target: InvokeTarget; name: string } {
  if (body.model && body.prompt) throw badParam('prompt', "Give either 'model' or 'prompt', not both.");
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
