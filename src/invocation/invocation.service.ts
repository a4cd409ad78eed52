import { Injectable, Logger } from '@nestjs/common';
import { ProjectPrincipal } from '../auth/principal';
import { ChatMessage } from '../common/chat';
import { ApiException, serviceError } from '../common/errors';
import { newId } from '../common/ids';
import { MessagesService } from '../messages/messages.service';
import { ProviderCredentials, ProviderError, ProvidersService } from '../providers';
import { RegistryService } from '../registry/registry.service';
import type { SentHistory } from '../request-logs/thread-range';
import { InvocationRecorder } from './invocation-recorder';
import { InvocationStreamRun } from './invocation-stream';
import { InvocationInput, InvocationResult, InvokeTarget, PreparedInvocation, ResolvedTarget } from './invocation.types';
import { providerFailure, threadNotFound, unsupportedParam } from './invoke-errors';
import { buildProviderRequest, effectiveParameters } from './invoke-request';

/**
 * The transport-independent invocation core (docs/decisions.md, "Invocation core"): resolve a
 * target, prepare the provider request (template, thread history, request messages, overrides),
 * call the provider with no database transaction open, and record the log and the thread turns.
 * It returns a completion or a stream; transports render them. Errors are ApiExceptions whose
 * bodies are the spec's; other surfaces re-shape them (common/errors).
 */
@Injectable()
export class InvocationService {
  private readonly logger = new Logger('Invocation');

  constructor(
    private readonly registry: RegistryService,
    private readonly messages: MessagesService,
    private readonly providers: ProvidersService,
    private readonly recorder: InvocationRecorder,
  ) {}

  /** The target in the caller's project; null when there is no such deployment or provider. */
  async resolve(caller: ProjectPrincipal, target: InvokeTarget): Promise<ResolvedTarget | null> {
    if (target.type === 'provider') {
      const provider = await this.registry.resolveProvider(caller.projectId, target.provider);
      if (!provider) return null;
      return { deployment: null, provider, model: target.model, kind: 'prompt', slug: `${target.provider}/${target.model}`, environment: '' };
    }
    const deployment = await this.registry.resolveForInvoke(caller.projectId, target.slug, target.environment, target.version);
    if (!deployment) return null;
    const { provider, model, kind, promptSlug: slug, environment } = deployment;
    return { deployment, provider, model, kind, slug, environment };
  }

  /** Everything decided before the call; throws the 404 "Thread not found" for a thread to continue that is not live. */
  async prepare(caller: ProjectPrincipal, input: InvocationInput): Promise<PreparedInvocation> {
    const { target } = input;
    const variables = { ...(target.deployment?.variableDefaults ?? {}), ...input.variables };
    const template = input.template ?? target.deployment?.compiled;
    const templateMessages = template ? template.render(variables) : [];
    let sent: SentHistory | undefined;
    let threadId: string | null = null;
    if (input.thread && 'continue' in input.thread) {
      threadId = input.thread.continue;
      // Liveness and history in one query: a database round trip less on every continued thread.
      const turns = await this.messages.liveTurnsOf(caller.projectId, threadId);
      if (!turns) throw threadNotFound();
      sent = { threadId, ...turns };
    } else if (input.thread) {
      threadId = newId();
    }
    const history = (sent?.messages ?? []) as ChatMessage[];
    const parameters = effectiveParameters(target, input.overrides);
    const request = buildProviderRequest({ target, overrides: input.overrides, parameters, templateMessages, history, messages: input.messages, metadata: input.metadata });
    const newThread = threadId !== null && !(input.thread && 'continue' in input.thread);
    return { input, threadId, newThread, variables, parameters, request, ...(sent ? { history: sent } : {}) };
  }

  /**
   * Calls the provider. A failure before any reply (or before the first chunk) is recorded and
   * thrown as the ApiException to answer with; the thread is left as it was. `signal` is the
   * client going away: it aborts the upstream call.
   */
  async run(caller: ProjectPrincipal, prepared: PreparedInvocation, signal?: AbortSignal): Promise<InvocationResult> {
    const startedAt = new Date();
    if (prepared.input.strictParams) this.refuseUnsupported(prepared);
    if (prepared.input.stream) {
      const run = new InvocationStreamRun(caller, prepared, startedAt, this.recorder, (err, ttftMs) => this.failed(caller, prepared, err, startedAt, ttftMs));
      return run.start(() => this.providers.stream(prepared.request, this.credentialsOf(prepared), { signal }));
    }
    let result;
    try {
      result = await this.providers.complete(prepared.request, this.credentialsOf(prepared), { signal });
    } catch (err) {
      throw await this.failed(caller, prepared, err, startedAt, null);
    }
    await this.recorder.recordSuccess(caller, prepared, { status: 200, error: null, ...result, startedAt, ttftMs: null });
    return { type: 'completion', threadId: prepared.threadId, completion: result.completion };
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

  /** Records the failed call and returns the error to answer with. */
  private async failed(caller: ProjectPrincipal, prepared: PreparedInvocation, err: unknown, startedAt: Date, ttftMs: number | null): Promise<ApiException> {
    // Anything else is a bug in an adapter: answered as a provider failure, logged with its stack.
    if (!(err instanceof ProviderError)) this.logger.error(`provider call failed unexpectedly: ${err instanceof Error ? err.stack : String(err)}`);
    const failure = err instanceof ProviderError ? providerFailure(err) : serviceError(502, 'Bad Gateway', 'The provider call failed');
    const message = (failure.body as { message: string }).message;
    // The upstream's own words may quote the prompt: the caller sees them, a doNotRecord log does not.
    const error = prepared.input.doNotRecord && err instanceof ProviderError ? err.recordableMessage : message;
    await this.recorder.recordFailure(caller, prepared, { status: failure.getStatus(), error, startedAt, ttftMs });
    return failure;
  }

  private credentialsOf(prepared: PreparedInvocation): ProviderCredentials {
    const { type, baseUrl, apiKey } = prepared.input.target.provider;
    return { type, baseUrl, apiKey };
  }
}
