import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { ProjectPrincipal } from '../auth/principal';
import { type ChatMessage, compactionMessage, encryptedContentOf } from '../common/chat';
import { openaiError } from '../common/errors';
import { wireLogFields, WireRequest } from '../common/http/wire-request';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { conversationNotFound } from '../conversations/conversations.service';
import { itemId } from '../conversations/item-ids';
import { idempotencyKeyOf } from '../idempotency/idempotency.interceptor';
import { InvocationService } from '../invocation/invocation.service';
import type { InvocationInput, ResolvedTarget } from '../invocation/invocation.types';
import { cacheTtlOf, invokeMetadataOf, optionsFromHeaders } from '../invocation/invoke-headers';
import { MessageStore } from '../messages/message-store';
import { targetOfModel } from '../openai/model-name';
import type { ChatCompletion } from '../providers';
import { ifArchived } from '../registry/prompts/prompt-archived';
import { CACHE_TTL_HEADER } from '../response-cache/response-cache-headers';
import { ThreadNotLive } from '../threads/thread-store';
import { BUILT_IN_COMPACTION_INSTRUCTIONS, CompactBody, summaryMessageText, transcriptOf } from './compaction-transcript';
import { ResponseUsage, usageOf } from './response-object';
import { responseIdOf, ResponsesBody, uuidOfResponseId } from './responses.schema';
import { ResponsesService } from './responses.service';
import { badParam, inputMessagesOf } from './responses-request';

/** OpenAI's CompactedResponse. */
export interface CompactedResponse {
  id: string;
  object: 'response.compaction';
  created_at: number;
  output: { id: string; type: 'compaction'; encrypted_content: string }[];
  usage: ResponseUsage;
}

const ZERO_USAGE: ResponseUsage = {
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 0,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 0,
};

/**
 * POST /v1/responses/compact (docs/openai-conversations.md, "Compaction"): the context — a stored
 * conversation (Parley's `conversation`), or `input` / `previous_response_id` — is summarized by
 * the configured compaction prompt through the invocation core (logged as any call). For a
 * conversation, the compaction's turn is appended and the turns it covers are marked, in the
 * transaction of the call's log: they stay listed, the model gets the summary instead.
 */
@Injectable()
export class CompactionService {
  constructor(
    private readonly invocation: InvocationService,
    private readonly messages: MessageStore,
    private readonly responses: ResponsesService,
    private readonly config: AppConfig,
  ) {}

  /** `body`: validated by the global pipe (CompactBodyDto); `request`: its headers and what its log records. */
  async compact(caller: ProjectPrincipal, body: CompactBody, request: WireRequest): Promise<CompactedResponse> {
    const conversationId =
      body.conversation == null ? null : typeof body.conversation === 'string' ? body.conversation : body.conversation.id;
    const { messages, throughSeq } = await this.contextOf(caller, body, conversationId);
    const { target, template } = await this.summarizer(caller, body);
    const headers = optionsFromHeaders(request.headers);
    const metadata = invokeMetadataOf(headers.metadata, undefined);
    const idempotencyKey = idempotencyKeyOf(request.headers, () =>
      openaiError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { param: 'Idempotency-Key' }),
    );
    const cacheTtlSeconds = cacheTtlOf(request.headers, (message) => openaiError(400, message, { param: CACHE_TTL_HEADER }));
    const turnId = newId();
    const log: { id?: string } = {};
    const createdAt = Math.floor(Date.now() / 1000);
    const input: InvocationInput = {
      target,
      messages: [{ role: 'user', content: transcriptOf(messages) } as ChatMessage],
      ...(template ? { template } : {}),
      variables: {},
      overrides: {},
      thread: null,
      stream: false,
      doNotRecord: headers.doNotRecord,
      metadata: metadata.metadata,
      strictParams: true,
      ...(cacheTtlSeconds !== undefined ? { cacheTtlSeconds } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
      objectId: responseIdOf(turnId),
      log: { requestData: request.body as Record<string, unknown>, ...wireLogFields(request) },
      ...(conversationId && throughSeq !== null
        ? {
            recordWith: (manager: EntityManager, completion: ChatCompletion) =>
              this.record(manager, caller.projectId, conversationId, throughSeq, { id: turnId, logId: log.id }, completion, target),
          }
        : {}),
    };
    const prepared = await this.invocation.prepare(caller, input);
    log.id = prepared.logId;
    const result = await this.invocation.run(caller, prepared);
    if (result.type !== 'completion') throw openaiError(500, 'The compaction call did not complete.');
    // An Idempotency-Key replay answers with the first answer's ids (its turn is not appended again).
    const replayedUuid = result.replayed?.objectId ? uuidOfResponseId(result.replayed.objectId) : null;
    const id = replayedUuid ?? turnId;
    const summary = summaryOf(result.completion);
    return {
      id: responseIdOf(id),
      object: 'response.compaction',
      created_at: createdAt,
      output: [
        { id: itemId('compaction', id, 0, 0), type: 'compaction', encrypted_content: encryptedContentOf(summaryMessageText(summary)) },
      ],
      usage: usageOf(result.completion.usage) ?? ZERO_USAGE,
    };
  }

  /** The messages to summarize and, for a conversation, the last turn they reach. */
  private async contextOf(
    caller: ProjectPrincipal,
    body: CompactBody,
    conversationId: string | null,
  ): Promise<{ messages: Record<string, unknown>[]; throughSeq: number | null }> {
    if (conversationId) {
      for (const field of ['input', 'previous_response_id', 'instructions'] as const) {
        if (body[field] != null)
          throw badParam(field, `'${field}' cannot be given with 'conversation': the conversation's items are compacted.`);
      }
      const compactable = await this.messages.compactableOf(caller.projectId, conversationId);
      if (!compactable) throw conversationNotFound(conversationId);
      if (compactable.throughSeq === null || transcriptOf(compactable.messages).trim() === '')
        throw badParam('conversation', 'The conversation has no items to compact.');
      return compactable;
    }
    const history = body.previous_response_id ? await this.responses.chainOf(caller.projectId, body.previous_response_id) : [];
    const input = inputMessagesOf({ input: body.input ?? undefined } as ResponsesBody);
    const instructions = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
    const messages = [...instructions, ...history, ...input] as Record<string, unknown>[];
    // Blank input ("", whitespace, messages without text) is nothing to compact either: refused before any call.
    if (transcriptOf([...history, ...input] as Record<string, unknown>[]).trim() === '') {
      throw badParam('input', "Give 'input', 'previous_response_id' or 'conversation': there is nothing to compact.");
    }
    return { messages, throughSeq: null };
  }

  /**
   * The configured compaction prompt when the project deploys it (its template, model and settings:
   * versioned like any prompt); otherwise Parley's instructions on the request's `model`.
   */
  private async summarizer(
    caller: ProjectPrincipal,
    body: CompactBody,
  ): Promise<{ target: ResolvedTarget; template?: InvocationInput['template'] }> {
    const named = body.model ? targetOfModel(body.model) : undefined;
    const modelNotFound = () =>
      openaiError(404, `The model '${body.model}' does not exist or you do not have access to it.`, {
        param: 'model',
        code: 'model_not_found',
      });
    if (body.model && !named) throw modelNotFound();
    const requested = named ? await this.invocation.resolve(caller, named) : null;
    if (named && !requested) throw modelNotFound();
    const configured = targetOfModel(this.config.responsesCompactionPrompt);
    // An archived compaction prompt is not invoked: the request's model summarizes, as when it is not deployed.
    const prompt =
      configured && configured.type === 'deployment' ? await ifArchived(this.invocation.resolve(caller, configured), () => null) : null;
    if (prompt) return { target: prompt };
    if (!requested)
      throw badParam(
        'model',
        `Missing required parameter: 'model' (the project has no deployment of the compaction prompt '${this.config.responsesCompactionPrompt}').`,
      );
    const system = { role: 'system', content: BUILT_IN_COMPACTION_INSTRUCTIONS } as ChatMessage;
    return { target: requested, template: { variables: [], render: () => [system] } };
  }

  private async record(
    manager: EntityManager,
    projectId: string,
    conversationId: string,
    throughSeq: number,
    turn: { id: string; logId?: string },
    completion: ChatCompletion,
    target: ResolvedTarget,
  ): Promise<void> {
    const summary = summaryOf(completion);
    const made = target.deployment
      ? `${target.deployment.promptSlug}@${target.deployment.environment}:${target.deployment.version}`
      : 'built-in';
    const metadata = { parley_compaction_prompt: made, parley_compaction_model: `${target.provider.name}/${target.model}` };
    try {
      await this.messages.appendCompaction(manager, projectId, conversationId, throughSeq, {
        id: turn.id,
        content: [compactionMessage(summaryMessageText(summary))],
        metadata,
        requestLogId: turn.logId ?? null,
      });
    } catch (err) {
      // The conversation was deleted meanwhile: its 404, not the thread's.
      if (err instanceof ThreadNotLive) throw conversationNotFound(conversationId);
      throw err;
    }
  }
}

/** The summary the model wrote; a reply without text cannot stand for the conversation (502). */
function summaryOf(completion: ChatCompletion): string {
  const text = completion.choices[0]?.message?.content;
  if (typeof text !== 'string' || text.trim() === '')
    throw openaiError(502, 'The compaction model answered without a summary.', { code: 'server_error' });
  return text.trim();
}
