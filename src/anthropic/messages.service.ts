import { Injectable } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import { wireLogFields, WireRequest } from '../common/http/wire-request';
import { idempotencyKeyOf } from '../idempotency/idempotency.interceptor';
import { InvocationService } from '../invocation/invocation.service';
import type { InvocationInput, ResolvedTarget, ThreadChoice } from '../invocation/invocation.types';
import { cacheTtlOf, invokeMetadataOf, optionsFromHeaders } from '../invocation/invoke-headers';
import { targetOfModel } from '../invocation/model-name';
import { anthropicError, invalidField } from './anthropic-errors';
import { chatMessagesOf, overridesOf } from './messages.request';
import type { PromptBody } from './messages.schema';

/**
 * `POST /v1/messages` (and its count_tokens) as an invocation core input
 * (docs/anthropic-compatibility.md): the target `model` names, the rules that need it, and
 * Anthropic-shaped 400/404s for what is wrong with them. `strictParams`: a field the target's
 * adapter cannot honour is refused by the core with a 400 naming it, as on /v1/chat/completions.
 */
@Injectable()
export class AnthropicMessagesService {
  constructor(private readonly invocation: InvocationService) {}

  /** `body`: validated by the global pipe (MessagesBodyDto, CountTokensBodyDto); `request`: its headers and what its log records. */
  async parse(caller: ProjectPrincipal, body: PromptBody, request: WireRequest): Promise<InvocationInput> {
    const named = targetOfModel(body.model);
    const target = named && (await this.invocation.resolve(caller, named));
    if (!target) throw anthropicError(404, `model: The model '${body.model}' does not exist or you do not have access to it.`);
    const deployment = target.deployment;
    if (!deployment && body.messages.length === 0)
      throw invalidField('messages', 'at least one message is required on a direct provider call');
    this.refuseUnsupported(body, target);
    const variables = body.variables ?? {};
    const declared = new Set(deployment?.declaredVariables ?? []);
    const unknown = Object.keys(variables).find((name) => !declared.has(name));
    if (unknown !== undefined)
      throw invalidField(
        `variables.${unknown}`,
        deployment ? `is not declared by ${target.slug}` : 'a direct provider call has no template variables',
      );
    if (body.thread_id !== undefined && target.kind !== 'assistant') throw invalidField('thread_id', 'applies to assistants only');

    const headers = optionsFromHeaders(request.headers);
    const metadata = invokeMetadataOf(headers.metadata, undefined);
    if (metadata.problems.length > 0) throw invalidField('metadata', metadata.problems.join('; '));
    const idempotencyKey = idempotencyKeyOf(request.headers, () =>
      invalidField('Idempotency-Key', 'must be 1 to 255 visible ASCII characters'),
    );
    const cacheTtlSeconds = cacheTtlOf(request.headers, (message) => anthropicError(400, message));
    return {
      target,
      messages: chatMessagesOf(body, target.provider.type),
      variables,
      overrides: overridesOf(body),
      thread: this.threadOf(target.kind, body.thread_id),
      stream: body.stream === true,
      doNotRecord: headers.doNotRecord,
      metadata: metadata.metadata,
      strictParams: true,
      ...(cacheTtlSeconds !== undefined ? { cacheTtlSeconds } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
      // As sent (the pipe proved it an object): the log keeps the client's own body, not zod's output.
      log: { requestData: request.body as Record<string, unknown>, ...wireLogFields(request) },
    };
  }

  /**
   * What no adapter's `unsupportedParam` can say, because the chat format has no field for it or
   * the provider takes the field and ignores it: `top_k`, and thinking on the `local` provider.
   */
  private refuseUnsupported(body: PromptBody, target: ResolvedTarget): void {
    if (body.top_k !== undefined) throw invalidField('top_k', "is not supported: none of Parley's providers take it");
    const thinking = body.thinking;
    if (thinking?.type !== 'enabled') return;
    if (target.provider.type === 'local')
      throw invalidField(
        'thinking',
        `provider "${target.provider.name}" cannot think: extended thinking needs an Anthropic or OpenAI-compatible reasoning model`,
      );
    if (body.max_tokens !== undefined && thinking.budget_tokens >= body.max_tokens)
      throw invalidField('thinking.budget_tokens', 'must be less than max_tokens');
  }

  /** Assistants: the thread `thread_id` names, or a new one per call (as on /v1/chat/completions). */
  private threadOf(kind: string, threadId: string | undefined): ThreadChoice {
    if (kind !== 'assistant') return null;
    return threadId !== undefined ? { continue: threadId } : { create: true };
  }
}
