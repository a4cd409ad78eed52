import { Injectable } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import type { ChatMessage } from '../common/chat';
import { openaiError } from '../common/errors';
import { wireLogFields, WireRequest } from '../common/http/wire-request';
import { idempotencyKeyOf } from '../idempotency/idempotency.interceptor';
import { InvocationService } from '../invocation/invocation.service';
import type { InvocationInput, RequestOverrides, ThreadChoice } from '../invocation/invocation.types';
import { cacheTtlOf, invokeMetadataOf, optionsFromHeaders } from '../invocation/invoke-headers';
import { CACHE_TTL_HEADER } from '../response-cache/response-cache-headers';
import { ChatCompletionsBody } from './chat-completions.schema';
import { targetOfModel } from './model-name';
import { badParam, modelNotFound } from './request-errors';

export interface ChatCompletionsInput {
  input: InvocationInput;
  /** `stream_options.include_usage`: a last chunk with the usage and no choices, before `[DONE]`. */
  includeUsage: boolean;
}

/** Body fields passed to the core as overrides of the deployment's stored settings, one for one. */
const OVERRIDES = [
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'stop',
  'n',
  'user',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
] as const;

/**
 * `POST /v1/chat/completions` as an invocation core input (docs/openai-compatibility.md): the
 * target the validated body's `model` names, and OpenAI-shaped 400/404s for what is wrong with them.
 */
@Injectable()
export class ChatCompletionsService {
  constructor(private readonly invocation: InvocationService) {}

  /** `body`: validated by the global pipe (ChatCompletionsBodyDto); `request`: its headers and what its log records. */
  async parse(caller: ProjectPrincipal, body: ChatCompletionsBody, request: WireRequest): Promise<ChatCompletionsInput> {
    if (body.stream_options && body.stream !== true) {
      throw badParam('stream_options', "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
    }

    const named = targetOfModel(body.model);
    const target = named && (await this.invocation.resolve(caller, named));
    if (!target) throw modelNotFound(body.model);
    const deployment = target.deployment;
    if (!deployment && body.messages.length === 0) throw badParam('messages', "'messages' must not be empty on a direct provider call");
    const variables = body.variables ?? {};
    const declared = new Set(deployment?.declaredVariables ?? []);
    const unknown = Object.keys(variables).find((name) => !declared.has(name));
    if (unknown !== undefined) {
      throw badParam(
        `variables.${unknown}`,
        deployment ? `Variable "${unknown}" is not declared by ${target.slug}` : 'A direct provider call has no template variables',
      );
    }
    if (body.thread_id != null && target.kind !== 'assistant') throw badParam('thread_id', 'thread_id applies to assistants only');

    const headers = optionsFromHeaders(request.headers);
    const metadata = invokeMetadataOf(headers.metadata, body.metadata);
    if (metadata.problems.length > 0) throw badParam('metadata', metadata.problems.join('; '));
    const idempotencyKey = idempotencyKeyOf(request.headers, () =>
      openaiError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { param: 'Idempotency-Key' }),
    );
    const cacheTtlSeconds = cacheTtlOf(request.headers, (message) => openaiError(400, message, { param: CACHE_TTL_HEADER }));
    return {
      input: {
        target,
        messages: body.messages as ChatMessage[],
        variables,
        overrides: this.overridesOf(body),
        thread: this.threadOf(target.kind, body.thread_id),
        stream: body.stream === true,
        doNotRecord: headers.doNotRecord,
        metadata: metadata.metadata,
        strictParams: true,
        ...(cacheTtlSeconds !== undefined ? { cacheTtlSeconds } : {}),
        ...(idempotencyKey ? { idempotencyKey } : {}),
        // As sent (the pipe proved it an object): the log keeps the client's own body, not zod's output.
        log: { requestData: request.body as Record<string, unknown>, ...wireLogFields(request) },
      },
      includeUsage: body.stream_options?.include_usage === true,
    };
  }

  /** Assistants: the thread `thread_id` names, or a new one per call (docs/openai-compatibility.md). */
  private threadOf(kind: string, threadId: string | null | undefined): ThreadChoice {
    if (kind !== 'assistant') return null;
    return threadId != null ? { continue: threadId } : { create: true };
  }

  /** `null` is OpenAI's "not given": it never overrides a stored setting. */
  private overridesOf(body: ChatCompletionsBody): RequestOverrides {
    const overrides: Record<string, unknown> = {};
    for (const key of OVERRIDES) if (body[key] != null) overrides[key] = body[key];
    return overrides as RequestOverrides;
  }
}
