import { Injectable } from '@nestjs/common';

import { credentialOf, mayInvokeIn, ProjectPrincipal } from '../auth/principal';
import { ChatMessage } from '../common/chat';
import { ApiException } from '../common/errors';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { Admission, LimitsService } from '../limits/limits.service';
import { MessageStore } from '../messages/message-store';
import { InputTokenCount, ProviderError, ProvidersService, TokenCounts } from '../providers';
import { chooseVersion } from '../registry/deployments/split';
import { RegistryService } from '../registry/registry.service';
import type { SentHistory } from '../request-logs/thread-range';
import { CACHE_RESULT_HEADER } from '../response-cache/response-cache-headers';
import { TemplateTooLargeError } from '../templates';
import { InvocationInput, InvocationResult, InvokePurpose, InvokeTarget, PreparedInvocation, ResolvedTarget } from './invocation.types';
import { admitOrLog } from './invocation-admission';
import { credentialsOf } from './invocation-attempts';
import { InvocationCache } from './invocation-cache';
import { recordedFailure } from './invocation-failure';
import { InvocationRecorder } from './invocation-recorder';
import { INVOKE_IDEMPOTENCY_ERRORS, replayOutcome } from './invocation-replay';
import { InvocationStreamRun } from './invocation-stream';
import { attemptTraceOf, callTraceOf, tracedCall } from './invocation-telemetry';
import {
  environmentRefused,
  providerFailure,
  TemplateTooLarge,
  templateTooLarge,
  threadNotFound,
  unsupportedParam,
  wrongKind,
} from './invoke-errors';
import { ATTEMPTS_HEADER, servedTargetHeaders, VERSION_HEADER } from './invoke-http';
import { buildProviderRequest, effectiveParameters } from './invoke-request';
import { RoutedCalls } from './routed-calls';

/**
 * The transport-independent invocation core (docs/decisions.md, "Invocation core"): resolve a
 * target, prepare the provider request (template, thread history, request messages, overrides),
 * call the provider with no database transaction open, and record the log and the thread turns.
 * It returns a completion or a stream; transports render them. Errors are ApiExceptions whose
 * bodies are the spec's; other surfaces re-shape them (common/errors).
 */
@Injectable()
export class InvocationService {
  /** TEMPLATE_MAX_RENDERED_CHARS. */
  private readonly templateMaxChars: number;

  constructor(
    private readonly registry: RegistryService,
    private readonly messages: MessageStore,
    private readonly providers: ProvidersService,
    private readonly recorder: InvocationRecorder,
    private readonly limits: LimitsService,
    private readonly idempotency: IdempotencyService,
    private readonly cache: InvocationCache,
    private readonly routed: RoutedCalls,
    config: AppConfig,
  ) {
    this.templateMaxChars = config.templateMaxRenderedChars;
  }

  /**
   * The target in the caller's project; null when there is no such deployment or provider. A
   * deployment of the other `purpose`'s kind (an embedding entry for chat, or the reverse) is a 400.
   */
  async resolve(caller: ProjectPrincipal, target: InvokeTarget, purpose: InvokePurpose = 'chat'): Promise<ResolvedTarget | null> {
    if (!mayInvokeIn(caller, target.type === 'deployment' ? target.environment : null)) throw environmentRefused(caller);
    if (target.type === 'provider') {
      const provider = await this.registry.resolveProvider(caller.projectId, target.provider);
      if (!provider) return null;
      return {
        deployment: null,
        provider,
        model: target.model,
        kind: purpose === 'embedding' ? 'embedding' : 'prompt',
        slug: `${target.provider}/${target.model}`,
        environment: '',
      };
    }
    const deployment = await this.registry.resolveForInvoke(caller.projectId, target.slug, target.environment, target.version);
    if (!deployment) return null;
    if ((deployment.kind === 'embedding') !== (purpose === 'embedding')) throw wrongKind(deployment.promptSlug, deployment.kind);
    const { provider, model, kind, promptSlug: slug, environment } = deployment;
    return { deployment, provider, model, kind, slug, environment };
  }

  /** Everything decided before the call; throws the 404 "Thread not found" for a thread to continue that is not live. */
  async prepare(caller: ProjectPrincipal, asked: InvocationInput): Promise<PreparedInvocation> {
    const continued = asked.thread && 'continue' in asked.thread ? asked.thread.continue : null;
    // A new thread's id is made first: a split may stick to it.
    const newThreadId = asked.thread && !continued ? newId() : null;
    const input = await this.withArm(caller, asked, continued ?? newThreadId);
    const { target } = input;
    const variables = { ...(target.deployment?.variableDefaults ?? {}), ...input.variables };
    const template = input.template ?? target.deployment?.compiled;
    let templateMessages: ChatMessage[] = [];
    let refusal: ApiException | undefined;
    try {
      if (template) templateMessages = template.render(variables, { maxChars: this.templateMaxChars });
    } catch (err) {
      // Stopped while rendering, before the output existed (docs/templates.md): run() logs and refuses the call.
      if (!(err instanceof TemplateTooLargeError)) throw err;
      refusal = templateTooLarge(err.maxChars);
    }
    let sent: SentHistory | undefined;
    const threadId = continued ?? newThreadId;
    if (continued) {
      // Liveness and history in one query, read together with concurrent calls' (history-reader.ts):
      // like the writes after the call, it takes no connection of its own (docs/security.md, "Database fairness").
      const turns = await this.messages.liveTurnsOf(caller.projectId, continued);
      if (!turns) throw threadNotFound();
      sent = { threadId: continued, ...turns };
    }
    const history = (sent?.messages ?? []) as ChatMessage[];
    const parameters = effectiveParameters(target, input.overrides);
    const request = buildProviderRequest({
      target,
      overrides: input.overrides,
      parameters,
      templateMessages,
      history,
      messages: input.messages,
      metadata: input.metadata,
    });
    const newThread = newThreadId !== null;
    return {
      input,
      logId: newId(),
      threadId,
      newThread,
      variables,
      parameters,
      request,
      ...(sent ? { history: sent } : {}),
      ...(refusal ? { refusal } : {}),
    };
  }

  /**
   * A split deployment's arm for this call (docs/experiments.md, "Splits"): the chosen version's
   * resolution in place of the control's, unless a version was pinned (`?v=N`). The arm's
   * resolution is the registry's cached one for that version in the environment.
   */
  private async withArm(caller: ProjectPrincipal, input: InvocationInput, threadId: string | null): Promise<InvocationInput> {
    const deployment = input.target.deployment;
    const split = deployment?.split;
    if (!deployment || !split || deployment.pinned || deployment.deploymentId === null) return input;
    const user = input.overrides.user ?? (typeof input.metadata.user === 'string' ? input.metadata.user : undefined);
    const version = chooseVersion(split, deployment.deploymentId, { threadId, user, metadata: input.metadata });
    if (version === deployment.version) return input;
    const arm = await this.registry.resolveForInvoke(caller.projectId, deployment.promptSlug, deployment.environment, version);
    // Versions are never deleted: an arm always resolves; the control serves if one did not.
    if (!arm) return input;
    const target = input.target;
    return {
      ...input,
      target: {
        ...target,
        deployment: { ...arm, pinned: false, split },
        // A surface that named another provider or model for the call keeps it.
        provider: target.provider.name === deployment.provider.name ? arm.provider : target.provider,
        model: target.model === deployment.model ? arm.model : target.model,
      },
    };
  }

  /**
   * Calls the provider. A failure before any reply (or before the first chunk) is recorded and
   * thrown as the ApiException to answer with; the thread is left as it was. `signal` is the
   * client going away: it aborts the upstream call.
   */
  async run(caller: ProjectPrincipal, prepared: PreparedInvocation, signal?: AbortSignal): Promise<InvocationResult> {
    const result = await this.runOnce(caller, prepared, signal);
    // Which version and target served it, on every surface (docs/experiments.md, "Splits"; docs/routing.md).
    const version = prepared.input.target.deployment?.version;
    const served = servedTargetHeaders(prepared);
    // A cache hit tried no target (docs/routing.md, "Response cache").
    if (result.headers?.[CACHE_RESULT_HEADER] === 'hit') served[ATTEMPTS_HEADER] = '0';
    result.headers = { ...result.headers, ...served };
    if (version !== undefined) result.headers[VERSION_HEADER] = String(version);
    return result;
  }

  private async runOnce(caller: ProjectPrincipal, prepared: PreparedInvocation, signal?: AbortSignal): Promise<InvocationResult> {
    const key = prepared.input.idempotencyKey;
    if (key) {
      // Bound to the credential, as on /v2 (docs/security.md, "Idempotency keys").
      const hash = this.idempotency.hashOf(prepared.input.log.url, prepared.input.log.requestData, credentialOf(caller));
      const claim = await this.idempotency.claim(caller.projectId, key, hash, INVOKE_IDEMPOTENCY_ERRORS);
      if (claim.type === 'replay') return replayOutcome(claim.outcome, prepared);
    }
    try {
      return await this.runClaimed(caller, prepared, signal);
    } catch (err) {
      if (key) await this.idempotency.settleFailure(caller.projectId, key, err);
      throw err;
    }
  }

  /** The call itself, once an Idempotency-Key (if any) is this request's. */
  private async runClaimed(caller: ProjectPrincipal, prepared: PreparedInvocation, signal?: AbortSignal): Promise<InvocationResult> {
    const startedAt = new Date();
    prepared.trace = callTraceOf(caller, prepared, 'chat');
    if (prepared.refusal) await this.refuse(caller, prepared, prepared.refusal, startedAt);
    if (prepared.input.strictParams) this.refuseUnsupported(prepared);
    const admission = await this.admit(caller, prepared, startedAt, signal);
    // A call no cache applies to pays nothing for it (docs/routing.md, "Response cache").
    const cached = this.cache.ttlOf(prepared) === null ? null : await this.cache.lookup(caller, prepared, admission, startedAt);
    if (cached?.hit) return this.withKeyReleased(caller, prepared, cached.hit);
    // A routing block's targets (docs/routing.md); without one the call's own target serves, as it always did.
    const route = prepared.input.target.deployment?.routing ? await this.routed.routeOf(caller, prepared) : null;
    if (route) prepared.route = route;
    const doNotRecord = prepared.input.doNotRecord;
    if (prepared.input.stream) {
      const key = prepared.input.idempotencyKey;
      const failed = async (err: unknown, ttftMs: number | null, partial?: { tokens: TokenCounts | undefined }) => {
        admission.release();
        if (route && ttftMs !== null) this.routed.failedAfterContent(route, err);
        const failure = await recordedFailure(this.recorder, caller, prepared, err, startedAt, ttftMs, partial);
        // Failing mid-stream (or the client leaving): a retry with the key may run again.
        if (key) await this.idempotency.release(caller.projectId, key);
        return failure;
      };
      const shares = this.limits.streamShares;
      const run = new InvocationStreamRun(caller, prepared, startedAt, this.recorder, admission, failed, () =>
        shares.turn(caller.projectId),
      );
      const provider = prepared.input.target.provider;
      const opened = route
        ? await run.startRouted(route, () => this.routed.openStream(route, doNotRecord, signal))
        : await run.start(
            () => this.providers.stream(prepared.request, credentialsOf(provider), { signal }),
            attemptTraceOf(prepared, provider, prepared.request, 1),
          );
      const streamed = this.cache.storing(cached, opened);
      if (!key) return streamed;
      // The reply could not be stored: nothing was appended, so a retry with the key may run again.
      const finish = () =>
        streamed.finish().catch(async (err: unknown) => {
          await this.idempotency.release(caller.projectId, key);
          throw err;
        });
      return { ...streamed, finish };
    }
    let result;
    try {
      const provider = prepared.input.target.provider;
      result = route
        ? await this.routed.complete(route, doNotRecord, signal)
        : await tracedCall(
            attemptTraceOf(prepared, provider, prepared.request, 1),
            this.providers.complete(prepared.request, credentialsOf(provider), { signal }),
          );
    } catch (err) {
      admission.release();
      throw await recordedFailure(this.recorder, caller, prepared, err, startedAt, null);
    }
    try {
      await this.recorder.recordSuccess(caller, prepared, {
        status: 200,
        error: null,
        ...result,
        startedAt,
        ttftMs: null,
        ...(route ? { route } : {}),
      });
      route?.onServed?.();
    } finally {
      admission.release(result.completion.usage?.total_tokens ?? 0);
    }
    const headers = cached ? { ...admission.headers, ...(await this.cache.store(cached, result)) } : admission.headers;
    return { type: 'completion', threadId: prepared.threadId, completion: result.completion, headers };
  }

  /** A streamed cache hit whose reply could not be stored: its Idempotency-Key is released, as for a provider's stream. */
  private withKeyReleased(caller: ProjectPrincipal, prepared: PreparedInvocation, hit: InvocationResult): InvocationResult {
    const key = prepared.input.idempotencyKey;
    if (!key || hit.type !== 'stream') return hit;
    const finish = () =>
      hit.finish().catch(async (err: unknown) => {
        await this.idempotency.release(caller.projectId, key);
        throw err;
      });
    return { ...hit, finish };
  }

  private admit(caller: ProjectPrincipal, prepared: PreparedInvocation, startedAt: Date, signal?: AbortSignal): Promise<Admission> {
    return admitOrLog(this.limits, this.recorder, caller, prepared, startedAt, signal);
  }

  /** A call refused before the provider (prepared.refusal): logged with its status, then thrown. */
  private async refuse(caller: ProjectPrincipal, prepared: PreparedInvocation, refusal: ApiException, startedAt: Date): Promise<never> {
    const error = refusal instanceof TemplateTooLarge ? refusal.detail : 'Refused';
    await this.recorder.recordFailure(caller, prepared, { status: refusal.getStatus(), error, startedAt, ttftMs: null });
    throw refusal;
  }

  /** prepare, then run. */
  async invoke(caller: ProjectPrincipal, input: InvocationInput, signal?: AbortSignal): Promise<InvocationResult> {
    return this.run(caller, await this.prepare(caller, input), signal);
  }

  private refuseUnsupported(prepared: PreparedInvocation): void {
    const { provider } = prepared.input.target;
    try {
      const param = this.providers.adapterFor(provider.type).unsupportedParam(prepared.request);
      if (param) throw unsupportedParam(provider.name, param);
    } catch (err) {
      throw err instanceof ProviderError ? providerFailure(err) : err;
    }
  }

  /**
   * How many input tokens the prepared call would cost (POST /v1/responses/input_tokens): the
   * provider's count, tokenizer or estimate; nothing is called for a reply, nothing logged.
   */
  async countInputTokens(prepared: PreparedInvocation): Promise<InputTokenCount> {
    try {
      return await this.providers.countInputTokens(prepared.request, credentialsOf(prepared.input.target.provider));
    } catch (err) {
      if (err instanceof ProviderError) throw providerFailure(err);
      throw err;
    }
  }
}
