import { Injectable } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import { ChatMessage, chatMessageSchema, SpecIssue } from '../common/chat';
import {
  ApiException,
  forbidden,
  isMalformedJsonBody,
  isPlainObject,
  malformedBodyReason,
  NESTED_TOO_DEEP_BODY,
  serviceError,
} from '../common/errors';
import { wireLogFields, WireRequest } from '../common/http/wire-request';
import { idempotencyKeyOf } from '../idempotency/idempotency.interceptor';
import { CompiledTemplate, compileTemplate, TemplateCompileError } from '../templates';
import { AssistantInvokeBody, parseInvokeBody } from './dto';
import { InvocationService } from './invocation.service';
import { InvocationInput, RequestOverrides, ResolvedTarget } from './invocation.types';
import { cacheTtlOf, invokeMetadataOf, optionsFromHeaders } from './invoke-headers';

/** What the path of the spec's invoke endpoints names. */
export interface SpecInvokeRoute {
  /** Absent on /project-prompt/{slug}/{environment}, which uses the key's project. */
  workspace?: string;
  project?: string;
  slug: string;
  environment: string;
  versionParam?: unknown;
}

const invalidBody = (issues: SpecIssue[]) => new ApiException(400, { error: 'Invalid request body', issues });
const issue = (path: string[], message: string): SpecIssue => ({ code: 'invalid_type', keys: [], path, message });
const deploymentNotFound = () => new ApiException(404, { error: 'Prompt deployment not found' });

/** The body fields that override a version's stored model settings, one for one (with `model` and `user`). */
const OVERRIDES = [
  'model',
  'temperature',
  'top_p',
  'max_tokens',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'tool_choice',
  'response_format',
  'user',
  'tools',
] as const;

/**
 * The spec's invoke endpoints as an invocation core input: the path names the deployment, the zod
 * invoke body (every problem reported at once as `issues`) the rest. Assistants continue the
 * body's `threadId` or create a thread; prompts have none.
 */
@Injectable()
export class SpecInvokeParser {
  constructor(private readonly invocation: InvocationService) {}

  async parse(caller: ProjectPrincipal, input: SpecInvokeRoute, wire: WireRequest): Promise<InvocationInput> {
    if (input.workspace !== undefined && (input.workspace !== caller.workspaceSlug || input.project !== caller.projectSlug)) {
      throw forbidden('API key does not belong to this project');
    }
    const version = this.versionOf(input.versionParam);
    const deployed = await this.invocation.resolve(caller, {
      type: 'deployment',
      slug: input.slug,
      environment: input.environment,
      version,
    });
    const resolved = deployed?.deployment;
    if (!deployed || !resolved) throw deploymentNotFound();

    if (wire.body === NESTED_TOO_DEEP_BODY)
      throw invalidBody([issue([], `Expected a JSON object body, but ${malformedBodyReason(wire.body)}`)]);
    if (isMalformedJsonBody(wire.body)) throw invalidBody([issue([], 'Expected a JSON object body, received text that is not valid JSON')]);
    const bodyTemplate = this.compileBodyTemplate(wire.body);
    const declared = bodyTemplate.compiled
      ? [...new Set([...bodyTemplate.compiled.variables, ...Object.keys(resolved.variableDefaults)])]
      : resolved.declaredVariables;
    // Never an embedding entry here: resolve refused it.
    const parsed = parseInvokeBody(wire.body, {
      kind: resolved.kind === 'assistant' ? 'assistant' : 'prompt',
      declaredVariables: declared,
    });
    const issues = [...(parsed.ok ? [] : parsed.issues), ...bodyTemplate.issues];
    if (!parsed.ok || issues.length > 0) throw invalidBody(issues);
    const body = parsed.value as AssistantInvokeBody;

    const headers = optionsFromHeaders(wire.headers);
    const metadata = invokeMetadataOf(headers.metadata, body.metadata);
    if (metadata.problems.length > 0) throw invalidBody(metadata.problems.map((problem) => issue(['metadata'], problem)));
    const idempotencyKey = idempotencyKeyOf(wire.headers, () =>
      serviceError(400, 'Bad Request', 'Idempotency-Key must be 1 to 255 visible ASCII characters'),
    );
    const cacheTtlSeconds = cacheTtlOf(wire.headers, (message) => serviceError(400, 'Bad Request', message));
    const target = await this.withProvider(caller, deployed, body.provider);
    const overrides: RequestOverrides = {};
    for (const key of OVERRIDES) {
      if (body[key] !== undefined) (overrides as Record<string, unknown>)[key] = body[key];
    }
    return {
      target,
      messages: body.messages ?? [],
      ...(bodyTemplate.compiled ? { template: bodyTemplate.compiled } : {}),
      variables: body.variables ?? {},
      overrides,
      thread: resolved.kind !== 'assistant' ? null : body.threadId !== undefined ? { continue: body.threadId } : { create: true },
      stream: body.stream === true,
      // A client that asked not to be recorded, in the body or in a header, is never recorded.
      doNotRecord: body.doNotRecord === true || headers.doNotRecord,
      metadata: metadata.metadata,
      ...(cacheTtlSeconds !== undefined ? { cacheTtlSeconds } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
      log: { requestData: body as Record<string, unknown>, ...wireLogFields(wire) },
    };
  }

  /**
   * The body's `provider` in place of the version's (the console's playground runs a draft's
   * provider without saving it). A key limited to some environments may not: with a template of
   * its own, that would be the direct provider call such a key is refused on /v1.
   */
  private async withProvider(caller: ProjectPrincipal, target: ResolvedTarget, name: string | undefined): Promise<ResolvedTarget> {
    if (name === undefined || name === target.provider.name) return target;
    if (caller.environments !== null)
      throw forbidden('This API key may only invoke deployments as they are: it cannot name another provider');
    const direct = await this.invocation.resolve(caller, { type: 'provider', provider: name, model: target.model });
    if (!direct)
      throw invalidBody([issue(['provider'], `Unknown provider "${name.slice(0, 64)}": use "local" or a provider of this project`)]);
    return { ...target, provider: direct.provider };
  }

  /** `?v=N` pins a version; an empty `v` (SDKs send `?v=`) means the deployed one. */
  private versionOf(param: unknown): number | undefined {
    if (param === undefined || param === '') return undefined;
    if (typeof param === 'string' && /^[1-9][0-9]{0,8}$/.test(param)) return Number(param);
    throw invalidBody([issue(['v'], `Expected a version number such as ?v=1, received ${JSON.stringify(param).slice(0, 40)}`)]);
  }

  /** The body's `template` replaces the stored one; it is compiled per request (and not cached). */
  private compileBodyTemplate(body: unknown): { compiled?: CompiledTemplate<ChatMessage>; issues: SpecIssue[] } {
    if (!isPlainObject(body) || !Array.isArray(body.template)) return { issues: [] };
    const messages = body.template.map((m) => chatMessageSchema.safeParse(m));
    if (messages.some((m) => !m.success)) return { issues: [] }; // parseInvokeBody reports these.
    try {
      return { compiled: compileTemplate(messages.map((m) => m.data as ChatMessage)), issues: [] };
    } catch (err) {
      if (!(err instanceof TemplateCompileError)) throw err;
      return { issues: [issue(['template', String(err.messageIndex), 'content'], err.message)] };
    }
  }
}
