import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { ProjectPrincipal } from '../auth/principal';
import { ChatMessage, chatMessageSchema, SpecIssue } from '../common/chat';
import { ApiException, forbidden, isMalformedJsonBody, isPlainObject } from '../common/errors';
import { newId } from '../common/ids';
import { MessagesService } from '../messages/messages.service';
import type { ProviderRequest } from '../providers';
import { RegistryService } from '../registry/registry.service';
import { ResolvedDeployment } from '../registry/resolved-deployment';
import type { SentHistory } from '../request-logs/thread-range';
import { compileTemplate, CompiledTemplate, TemplateCompileError } from '../templates';
import { AssistantInvokeBody, parseInvokeBody } from './dto';
import { optionsFromHeaders } from './invoke-headers';
import { buildProviderRequest } from './invoke-request';

export interface InvokeInput {
  /** Absent on /project-prompt/{slug}/{environment}, which uses the key's project. */
  workspace?: string;
  project?: string;
  slug: string;
  environment: string;
  versionParam?: unknown;
  body: unknown;
  headers: IncomingHttpHeaders;
  url: string;
  ip: string | undefined;
}

export interface PreparedInvoke {
  resolved: ResolvedDeployment;
  body: AssistantInvokeBody;
  doNotRecord: boolean;
  metadata: Record<string, string | number>;
  variables: Record<string, string>;
  /** Assistants: the thread continued, or the id the new thread will get once the call succeeds. */
  threadId: string | null;
  newThread: boolean;
  request: ProviderRequest;
  /** The thread history sent, by turn: the request log refers to it instead of copying it. */
  history?: SentHistory;
}

const invalidBody = (issues: SpecIssue[]) => new ApiException(400, { error: 'Invalid request body', issues });
/** The invoke endpoints' own 404 body for a thread that is unknown, deleted or of another project. */
export const threadNotFound = () => new ApiException(404, { error: 'Thread not found' });
const issue = (path: string[], message: string): SpecIssue => ({ code: 'invalid_type', keys: [], path, message });

/** Everything an invoke decides before calling the model: who, what, with which messages. */
@Injectable()
export class InvokePreparer {
  constructor(
    private readonly registry: RegistryService,
    private readonly messages: MessagesService,
  ) {}

  async prepare(caller: ProjectPrincipal, input: InvokeInput): Promise<PreparedInvoke> {
    if (input.workspace !== undefined && (input.workspace !== caller.workspaceSlug || input.project !== caller.projectSlug)) {
      throw forbidden('API key does not belong to this project');
    }
    const version = this.versionOf(input.versionParam);
    const resolved = await this.registry.resolveForInvoke(caller.projectId, input.slug, input.environment, version);
    if (!resolved) throw new ApiException(404, { error: 'Prompt deployment not found' });

    if (isMalformedJsonBody(input.body)) throw invalidBody([issue([], 'Expected a JSON object body, received text that is not valid JSON')]);
    const bodyTemplate = this.compileBodyTemplate(input.body);
    const declared = bodyTemplate.compiled
      ? [...new Set([...bodyTemplate.compiled.variables, ...Object.keys(resolved.variableDefaults)])]
      : resolved.declaredVariables;
    const parsed = parseInvokeBody(input.body, { kind: resolved.kind, declaredVariables: declared });
    const issues = [...(parsed.ok ? [] : parsed.issues), ...bodyTemplate.issues];
    if (!parsed.ok || issues.length > 0) throw invalidBody(issues);
    const body = parsed.value as AssistantInvokeBody;

    const headers = optionsFromHeaders(input.headers);
    const metadata = { ...headers.metadata, ...(body.metadata ?? {}) };
    const variables = { ...resolved.variableDefaults, ...(body.variables ?? {}) };
    const templateMessages = (bodyTemplate.compiled ?? resolved.compiled).render(variables);

    let threadId: string | null = null;
    let sent: SentHistory | undefined;
    if (resolved.kind === 'assistant') {
      threadId = body.threadId ?? newId();
      if (body.threadId !== undefined) sent = await this.historyOf(caller.projectId, body.threadId);
    }
    const history = (sent?.messages ?? []) as ChatMessage[];
    return {
      resolved,
      body,
      // A client that asked not to be recorded, in the body or in a header, is never recorded.
      doNotRecord: body.doNotRecord === true || headers.doNotRecord,
      metadata,
      variables,
      threadId,
      newThread: resolved.kind === 'assistant' && body.threadId === undefined,
      request: buildProviderRequest({ resolved, body, templateMessages, history, metadata }),
      history: sent,
    };
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

  private async historyOf(projectId: string, threadId: string): Promise<SentHistory> {
    // Liveness and history in one query: a database round trip less on every continued thread.
    const turns = await this.messages.liveTurnsOf(projectId, threadId);
    if (!turns) throw threadNotFound();
    return { threadId, ...turns };
  }
}
