import { Injectable } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import type { ChatMessage } from '../common/chat';
import { openaiError, openaiErrorObjectOf } from '../common/errors';
import { wireLogFields, WireRequest } from '../common/http/wire-request';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { conversationNotFound } from '../conversations/conversations.service';
import { idempotencyKeyOf } from '../idempotency/idempotency.interceptor';
import { InvocationService } from '../invocation/invocation.service';
import type { InvocationInput, PreparedInvocation } from '../invocation/invocation.types';
import { ThreadNotFound } from '../invocation/invoke-errors';
import { cacheTtlOf, invokeMetadataOf, optionsFromHeaders } from '../invocation/invoke-headers';
import { LOG_ID_HEADER, servedTargetHeaders, VERSION_HEADER } from '../invocation/invoke-http';
import type { ChatCompletion } from '../providers';
import { CACHE_TTL_HEADER } from '../response-cache/response-cache-headers';
import { ResponseEntity } from './response.entity';
import { responseBaseOf, withRequiredFields } from './response-base';
import { ResponseEvent, ResponseEventTranslator } from './response-events';
import { OutputOptions, ResponseBase, ResponseObject, responseOf } from './response-object';
import type { ResponsePlan } from './response-plan';
import { ResponseRunner } from './response-runner';
import { replyMessages } from './response-terminal';
import { ResponsesRepository } from './responses.repository';
import { responseIdOf, ResponsesBody, uuidOfResponseId } from './responses.schema';
import { badParam, conversationIdOf, inputMessagesOf, modelBesidePrompt, targetOf, variablesOf } from './responses-request';
import { overridesOf, truncateHistory } from './responses-translate';

/** `headers`: what the answer carries besides (x-parley-log-id, x-parley-version, x-ratelimit-*, `Idempotent-Replayed` on a replay). */
export type ResponsesResult = (
  { kind: 'response'; response: ResponseObject } | { kind: 'events'; events: AsyncIterable<ResponseEvent> }
) & { headers: Record<string, string> };

/**
 * What every invoke answer names (docs/openai-compatibility.md; docs/experiments.md, "Splits"): its
 * log, the version and the target that served it, a split's arm chosen when the call was prepared.
 */
function servedHeaders(prepared: PreparedInvocation): Record<string, string> {
  const version = prepared.input.target.deployment?.version;
  return {
    [LOG_ID_HEADER]: prepared.logId,
    ...(version !== undefined ? { [VERSION_HEADER]: String(version) } : {}),
    // The run has sent its first content event by now: the target named is the one that served it (docs/routing.md).
    ...servedTargetHeaders(prepared),
  };
}

/** How far `previous_response_id` chains are followed. */
const MAX_CHAIN = 1000;

/**
 * POST /v1/responses on the invocation core (docs/openai-conversations.md, "Responses"): the
 * request becomes an invocation (template, conversation history or previous_response_id chain,
 * input), the completion or chunks become a Response or its typed events. With `conversation`,
 * the core appends input and output to the thread atomically after the provider succeeded.
 */
@Injectable()
export class ResponsesService {
  constructor(
    private readonly invocation: InvocationService,
    private readonly responses: ResponsesRepository,
    private readonly config: AppConfig,
    private readonly runner: ResponseRunner,
  ) {}

  async create(caller: ProjectPrincipal, requestBody: ResponsesBody, request: WireRequest, signal?: AbortSignal): Promise<ResponsesResult> {
    const plan = await this.plan(caller, request, requestBody);
    const { body, prepared, input, conversationId, uuid, name } = plan;
    if (body.background) throw badParam('background', "'background: true' is handled by BackgroundResponsesService.");
    // Streamed and stored: its events are stored as they go, resumable on any instance. With an
    // Idempotency-Key the key makes the call safe to retry instead (docs/openai-conversations.md).
    if (body.stream === true && plan.base.store && !prepared.input.idempotencyKey) {
      const run = await this.runner.runStreamed(caller, plan, signal);
      // The version that served and the log first, as on every surface; then the call's own (x-ratelimit-*, x-parley-cache).
      return { kind: 'events', events: run.events, headers: { ...servedHeaders(prepared), ...run.headers } };
    }
    // A stored, non-streamed Response is written with the call's log and conversation turns, in
    // their (group-committed) transaction: no write and commit of its own after the call.
    let recorded: ResponseObject | undefined;
    if (plan.base.store && body.stream !== true) {
      prepared.input.recordRows = (completion) => {
        recorded = responseOf(plan.base, completion, plan.outputOptions);
        const row = this.rowOf(caller.projectId, uuid, body, conversationId, input, completion, recorded, prepared.logId);
        return { target: ResponseEntity, rows: [row] };
      };
    }
    const result = await this.invocation.run(caller, prepared, signal);
    // Not on a replay, whose log id was never written (as on the other surfaces).
    const answerHeaders = { ...(result.replayed ? {} : { [LOG_ID_HEADER]: prepared.logId }), ...result.headers };
    // An Idempotency-Key replay answers with the id (and, when stored, the Response) of the first answer.
    const replayedId = result.replayed?.objectId;
    const replayedUuid = replayedId ? uuidOfResponseId(replayedId) : null;
    const storedRow = replayedUuid ? await this.responses.findLive(caller.projectId, replayedUuid) : null;
    const stored = storedRow ? withRequiredFields(storedRow.body) : null;
    const context = {
      uuid: replayedUuid ?? uuid,
      model: name,
      conversationId,
      parameters: prepared.parameters,
      createdAt: stored?.created_at ?? plan.base.created_at,
    };
    const base = responseBaseOf(body, context);
    const store = (response: ResponseObject, completion: ChatCompletion) =>
      base.store && !stored
        ? this.store(caller.projectId, context.uuid, body, conversationId, input, completion, response, prepared.logId)
        : Promise.resolve();
    if (result.type === 'completion') {
      if (stored) return { kind: 'response', response: stored, headers: answerHeaders };
      if (recorded) return { kind: 'response', response: recorded, headers: answerHeaders };
      const response = responseOf(base, result.completion, plan.outputOptions);
      await store(response, result.completion);
      return { kind: 'response', response, headers: answerHeaders };
    }
    return { kind: 'events', events: this.events(base, plan.outputOptions, result, store), headers: answerHeaders };
  }

  /**
   * Everything decided before the provider call: the body validated (400s), the target resolved
   * (404), history and input prepared, the Response's base. `fixed` keeps the id and creation time
   * of a response already stored (a background job running it).
   */
  async plan(
    caller: ProjectPrincipal,
    request: WireRequest,
    body: ResponsesBody,
    fixed?: { uuid: string; createdAt: number },
  ): Promise<ResponsePlan> {
    const conversationId = conversationIdOf(body);
    if (conversationId && body.previous_response_id) {
      throw badParam(
        'previous_response_id',
        "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
      );
    }
    if (body.top_logprobs)
      throw badParam('top_logprobs', "'top_logprobs' other than 0 is not supported: Parley returns no log probabilities.");
    const { target: named, name: targetName } = targetOf(body);
    const input = inputMessagesOf(body);
    const history = body.previous_response_id ? await this.chainOf(caller.projectId, body.previous_response_id) : [];
    const target = await this.invocation.resolve(caller, named);
    if (!target)
      throw openaiError(404, `The model '${targetName}' does not exist or you do not have access to it.`, {
        param: body.prompt ? 'prompt' : 'model',
        code: 'model_not_found',
      });
    const overrides = overridesOf(body);
    if (body.prompt && body.model && named.type === 'deployment') {
      const model = modelBesidePrompt(body.model, named, target);
      if (model !== undefined) overrides.model = model;
    }
    // The Response's `model`: what the caller named, `model` when it gave one.
    const name = body.model ?? targetName;
    if (!target.deployment && input.length === 0 && history.length === 0 && !conversationId)
      throw badParam('input', "'input' must not be empty on a direct provider call");
    const headers = optionsFromHeaders(request.headers);
    const metadata = invokeMetadataOf(headers.metadata, body.metadata);
    if (metadata.problems.length > 0) throw badParam('metadata', metadata.problems.join('; '));
    const idempotencyKey = idempotencyKeyOf(request.headers, () =>
      openaiError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { param: 'Idempotency-Key' }),
    );
    const cacheTtlSeconds = cacheTtlOf(request.headers, (message) => openaiError(400, message, { param: CACHE_TTL_HEADER }));
    const compiled = target.deployment?.compiled;
    const uuid = fixed?.uuid ?? newId();
    const createdAt = fixed?.createdAt ?? Math.floor(Date.now() / 1000);
    const instructions = body.instructions ?? null;
    const invocation: InvocationInput = {
      target,
      messages: [...history, ...input],
      // Instructions are a system message after the deployment's template, sent on this call only (never stored in the conversation).
      ...(instructions
        ? {
            template: {
              variables: compiled?.variables ?? [],
              render: (v, limits) => [...(compiled?.render(v, limits) ?? []), { role: 'system', content: instructions } as ChatMessage],
            },
          }
        : {}),
      variables: variablesOf(body),
      overrides,
      thread: conversationId ? { continue: conversationId } : null,
      stream: body.stream === true,
      doNotRecord: headers.doNotRecord,
      metadata: metadata.metadata,
      strictParams: true,
      ...(cacheTtlSeconds !== undefined ? { cacheTtlSeconds } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
      objectId: responseIdOf(uuid),
      // As sent (validated as an object): the log keeps the client's own body, not zod's output.
      log: { requestData: request.body as Record<string, unknown>, ...wireLogFields(request) },
    };
    // The conversation's liveness comes with its history, in the same read (its 404 re-shaped here).
    const prepared = await this.invocation.prepare(caller, invocation).catch((err: unknown) => {
      throw conversationId && err instanceof ThreadNotFound ? conversationNotFound(conversationId) : err;
    });
    if (body.truncation === 'auto') await this.truncate(prepared, input.length);
    const base = responseBaseOf(body, { uuid, model: name, conversationId, parameters: prepared.parameters, createdAt });
    const outputOptions = { encryptedReasoning: (body.include ?? []).includes('reasoning.encrypted_content') };
    return { body, uuid, name, base, outputOptions, prepared, input, conversationId };
  }

  private async *events(
    base: ResponseBase,
    outputOptions: OutputOptions,
    result: Extract<Awaited<ReturnType<InvocationService['run']>>, { type: 'stream' }>,
    store: (r: ResponseObject, c: ChatCompletion) => Promise<void>,
  ): AsyncIterable<ResponseEvent> {
    const translator = new ResponseEventTranslator(base, outputOptions);
    yield* translator.start();
    try {
      for await (const chunk of result.chunks) yield* translator.push(chunk);
      const completion = await result.finish();
      const end = translator.finish(completion.usage);
      await store(end.response, completion);
      yield* end.events;
    } catch (err) {
      const error = openaiErrorObjectOf(err);
      yield* translator.failureEvents(error.code ?? error.type, error.message, error.type, error.param ?? null);
    }
  }

  /** The chat messages of a previous_response_id chain, oldest first; 404 when it names no stored response. */
  async chainOf(projectId: string, responseId: string): Promise<ChatMessage[]> {
    const uuid = uuidOfResponseId(responseId);
    const chain = uuid ? await this.responses.chain(projectId, uuid, MAX_CHAIN) : [];
    if (chain.length === 0)
      throw openaiError(404, `Previous response with id '${responseId}' not found.`, { param: 'previous_response_id', code: 'not_found' });
    return chain.flatMap((link) => [...link.input, ...link.output]) as unknown as ChatMessage[];
  }

  /** Leading system messages and this turn's input stay; the oldest history goes first. */
  private async truncate(prepared: PreparedInvocation, inputCount: number): Promise<void> {
    const messages = prepared.request.messages as unknown as Record<string, unknown>[];
    let head = 0;
    while (head < messages.length && (messages[head].role === 'system' || messages[head].role === 'developer')) head++;
    const tailStart = Math.max(head, messages.length - inputCount);
    prepared.request.messages = (await truncateHistory(
      messages.slice(0, head),
      messages.slice(head, tailStart),
      messages.slice(tailStart),
      this.config.responsesContextBudgetTokens,
    )) as never;
  }

  private async store(
    projectId: string,
    uuid: string,
    body: ResponsesBody,
    conversationId: string | null,
    input: ChatMessage[],
    completion: ChatCompletion,
    response: ResponseObject,
    logId: string,
  ): Promise<void> {
    await this.responses.insert(this.rowOf(projectId, uuid, body, conversationId, input, completion, response, logId));
  }

  private rowOf(
    projectId: string,
    uuid: string,
    body: ResponsesBody,
    conversationId: string | null,
    input: ChatMessage[],
    completion: ChatCompletion,
    response: ResponseObject,
    logId: string,
  ): ResponseEntity {
    return Object.assign(new ResponseEntity(), {
      projectId,
      id: uuid,
      previousResponseId: body.previous_response_id ? uuidOfResponseId(body.previous_response_id) : null,
      conversationId,
      input: input as unknown as Record<string, unknown>[],
      output: replyMessages(completion),
      body: response as unknown as Record<string, unknown>,
      createdAt: new Date(),
      deletedAt: null,
      logId,
    });
  }
}
