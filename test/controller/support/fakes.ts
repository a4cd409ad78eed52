import { randomUUID } from 'node:crypto';

import type { ApiKeysService } from '../../../src/auth/api-keys.service';
import type { AdminPrincipal, Principal, ProjectPrincipal } from '../../../src/auth/principal';
import { INSTANCE_ADMIN } from '../../../src/auth/principal';
import type { Scope } from '../../../src/auth/scopes';
import { ChatMessage, threadMessageInputSchema } from '../../../src/common/chat';
import { ApiException, badRequest, notFound } from '../../../src/common/errors';
import { isUuid } from '../../../src/common/ids';
import { pageLimit, toPage } from '../../../src/common/pagination';
import type { IdempotencyErrors, IdempotencyService } from '../../../src/idempotency/idempotency.service';
import type { Claim, StoredOutcome } from '../../../src/idempotency/idempotency.types';
import type { InvocationService } from '../../../src/invocation/invocation.service';
import type {
  CompletionResult,
  InvocationInput,
  InvokeTarget,
  PreparedInvocation,
  ResolvedTarget,
} from '../../../src/invocation/invocation.types';
import { threadNotFound } from '../../../src/invocation/invoke-errors';
import type { MessagesService } from '../../../src/messages/messages.service';
import type { PromptKind } from '../../../src/registry/resolved-deployment';
import { compileTemplate } from '../../../src/templates';
import type { ThreadsService } from '../../../src/threads/threads.service';

/**
 * In-memory stand-ins for what sits behind the controllers: the services (and, through them, the
 * repositories and the database). Each keeps just enough state to answer as the real one does and
 * throws the app's own exception (ApiException, through the same factories in src/common/errors and
 * src/invocation/invoke-errors.ts) with the message the real service uses. So the controller tier
 * checks the HTTP edge's rendering of those errors; the real conditions (unknown, deleted and
 * foreign ids against a database) are covered by the e2e tier, named at each use.
 */

export const WORKSPACE = 'acme';
export const PROJECT = 'support-bot';
export const PROJECT_ID = '01990000-0000-7000-8000-00000000a001';

/** API keys the fake ApiKeysService knows; anything else is an unknown key (401). */
export const KEYS = {
  /** A project key without scopes: every scope (src/auth/scopes.ts). */
  full: 'ck-controller-full-0123456789',
  /** A project key holding none of the spec endpoints' scopes (invoke, threads:read, threads:write). */
  logsOnly: 'ck-controller-logs-only-0123',
  /** A project key that may read threads, not write them. */
  readOnly: 'ck-controller-read-only-0123',
  /** The instance's admin key. */
  admin: 'ck-controller-admin-012345678',
} as const;

export const UNKNOWN_UUID = '01990000-0000-7000-8000-000000000000';

export function projectPrincipal(scopes: Scope[] | null): ProjectPrincipal {
  return {
    kind: 'project',
    keyId: randomUUID(),
    keyName: 'controller tier',
    scopes,
    environments: null,
    projectId: PROJECT_ID,
    projectSlug: PROJECT,
    workspaceId: '01990000-0000-7000-8000-00000000b001',
    workspaceSlug: WORKSPACE,
  };
}

/** ApiKeysService's two methods the global guard calls. */
export class FakeApiKeys implements Pick<ApiKeysService, 'resolve' | 'actingIn'> {
  private readonly principals = new Map<string, Principal>([
    [KEYS.full, projectPrincipal(null)],
    [KEYS.logsOnly, projectPrincipal(['logs:read'])],
    [KEYS.readOnly, projectPrincipal(['threads:read'])],
    [KEYS.admin, INSTANCE_ADMIN(null, 'PARLEY_ADMIN_KEY')],
  ]);

  async resolve(secret: string): Promise<Principal | null> {
    return this.principals.get(secret) ?? null;
  }

  /** `X-Parley-Project: acme/support-bot` names the one project there is; anything else none (the guard's 404). */
  async actingIn(admin: AdminPrincipal, target: string): Promise<ProjectPrincipal | null> {
    if (target !== `${WORKSPACE}/${PROJECT}`) return null;
    return { ...projectPrincipal(admin.scopes === null ? null : [...admin.scopes]), keyId: admin.keyId, actingAdmin: true };
  }
}

/**
 * Something to throw from the next service call instead of answering: the filter's rendering of
 * errors that are not the service's own (a lost database connection, a bug).
 */
export class Failing {
  private next: unknown;
  /** Names of the service methods called, in order: validation must refuse before any of them. */
  readonly calls: string[] = [];

  failNextWith(err: unknown): void {
    this.next = err;
  }

  protected called(name: string): void {
    this.calls.push(name);
    const err = this.next;
    if (err === undefined) return;
    this.next = undefined;
    throw err;
  }
}

interface StoredThread {
  id: string;
  projectId: string;
  metadata: Record<string, string | number>;
  createdAt: Date;
  deleted: boolean;
}

const THREAD_NOT_FOUND = 'Thread not found';

/** ThreadsService's five endpoint methods on a Map. Real conditions: test/threads-errors.e2e-spec.ts. */
export class FakeThreads extends Failing implements Pick<ThreadsService, 'create' | 'list' | 'get' | 'update' | 'delete'> {
  readonly rows = new Map<string, StoredThread>();
  /** When set, create waits for it: a request still running, for the Idempotency-Key 409. */
  hold: Promise<void> | undefined;
  /** Resolves each time create starts. */
  private started: (() => void) | undefined;

  /** Adds a live thread of the project and answers its id. */
  seed(metadata: Record<string, string | number> = {}): string {
    const id = randomUUID();
    this.rows.set(id, { id, projectId: PROJECT_ID, metadata, createdAt: new Date(), deleted: false });
    return id;
  }

  /** A promise of the next create having started (and being held, if `hold` is set). */
  nextCreateStarted(): Promise<void> {
    return new Promise((resolve) => (this.started = resolve));
  }

  live(projectId: string, id: string): StoredThread {
    const row = isUuid(id) ? this.rows.get(id) : undefined;
    if (!row || row.deleted || row.projectId !== projectId) throw notFound(THREAD_NOT_FOUND);
    return row;
  }

  async create(caller: ProjectPrincipal, dto: Parameters<ThreadsService['create']>[1]) {
    this.called('create');
    this.started?.();
    if (this.hold) await this.hold;
    const id = randomUUID();
    const row: StoredThread = { id, projectId: caller.projectId, metadata: dto.metadata ?? {}, createdAt: new Date(), deleted: false };
    this.rows.set(id, row);
    return { id, createdAt: row.createdAt.toISOString(), projectId: row.projectId, metadata: row.metadata, deletedAt: null, createLog: {} };
  }

  async list(caller: ProjectPrincipal, query: Parameters<ThreadsService['list']>[1]) {
    this.called('list');
    if (query.after !== undefined && !this.rows.has(query.after)) throw badRequest('Invalid request parameters', ['after: no such thread']);
    const rows = [...this.rows.values()].filter((row) => row.projectId === caller.projectId && !row.deleted);
    return { object: 'list' as const, ...toPage(rows.map(listItem), pageLimit(query)) };
  }

  async get(caller: ProjectPrincipal, id: string) {
    this.called('get');
    return { ...listItem(this.live(caller.projectId, id)), deletedAt: null };
  }

  async update(caller: ProjectPrincipal, id: string, dto: Parameters<ThreadsService['update']>[2]) {
    this.called('update');
    const row = this.live(caller.projectId, id);
    row.metadata = dto.metadata;
    return listItem(row);
  }

  async delete(caller: ProjectPrincipal, id: string) {
    this.called('delete');
    this.live(caller.projectId, id).deleted = true;
    return { id, object: 'thread.deleted' as const, deleted: true as const };
  }
}

const listItem = (row: StoredThread) => ({
  id: row.id,
  createdAt: Math.floor(row.createdAt.getTime() / 1000),
  projectId: row.projectId,
  createLog: {},
  metadata: row.metadata,
});

interface StoredMessage {
  id: string;
  threadId: string;
  content: Record<string, unknown>[];
  metadata: Record<string, string | number>;
  createdAt: Date;
  deleted: boolean;
}

/** The real service's three not-found messages (src/messages/messages.service.ts), as the spec words them. */
export const MESSAGE_NOT_FOUND = {
  get: 'Thread not found, message not in thread, or message does not exist',
  update: 'Message not found',
  delete: 'Message not found or does not belong to the proper thread/project',
} as const;

/** MessagesService's five endpoint methods on a Map. Real conditions: test/messages-errors.e2e-spec.ts. */
export class FakeMessages extends Failing implements Pick<MessagesService, 'create' | 'list' | 'get' | 'update' | 'delete'> {
  readonly rows = new Map<string, StoredMessage>();

  constructor(private readonly threads: FakeThreads) {
    super();
  }

  /** Adds a live message to a thread and answers its id. */
  seed(threadId: string, text = 'hello'): string {
    const id = randomUUID();
    this.rows.set(id, { id, threadId, content: [{ role: 'user', content: text }], metadata: {}, createdAt: new Date(), deleted: false });
    return id;
  }

  private find(caller: ProjectPrincipal, threadId: string, messageId: string): StoredMessage | undefined {
    const row = isUuid(messageId) ? this.rows.get(messageId) : undefined;
    const thread = this.threads.rows.get(threadId);
    if (!row || row.deleted || row.threadId !== threadId || !thread || thread.deleted || thread.projectId !== caller.projectId) {
      return undefined;
    }
    return row;
  }

  async create(caller: ProjectPrincipal, threadId: string, dto: Parameters<MessagesService['create']>[2]) {
    this.called('create');
    this.threads.live(caller.projectId, threadId);
    const id = this.seed(threadId);
    const row = this.rows.get(id)!;
    row.content = [threadMessageInputSchema.parse(dto.message)];
    row.metadata = dto.metadata ?? {};
    return item(row);
  }

  async list(caller: ProjectPrincipal, threadId: string, query: Parameters<MessagesService['list']>[2]) {
    this.called('list');
    this.threads.live(caller.projectId, threadId);
    if (query.after !== undefined && !this.find(caller, threadId, query.after)) {
      throw badRequest('Invalid request parameters', ['after: no such message in this thread']);
    }
    const rows = [...this.rows.values()].filter((row) => row.threadId === threadId && !row.deleted).map(item);
    const page = toPage(query.order === 'desc' ? rows.reverse() : rows, pageLimit(query));
    return { data: page.data, has_more: page.has_more, object: 'list' as const, first_id: page.first_id, last_id: page.last_id };
  }

  async get(caller: ProjectPrincipal, threadId: string, messageId: string) {
    this.called('get');
    const row = this.find(caller, threadId, messageId);
    if (!row) throw notFound(MESSAGE_NOT_FOUND.get);
    return item(row);
  }

  async update(caller: ProjectPrincipal, threadId: string, messageId: string, dto: Parameters<MessagesService['update']>[3]) {
    this.called('update');
    const row = this.find(caller, threadId, messageId);
    if (!row) throw notFound(MESSAGE_NOT_FOUND.update);
    row.metadata = dto.metadata;
    return { ...item(row), deletedAt: null };
  }

  async delete(caller: ProjectPrincipal, threadId: string, messageId: string) {
    this.called('delete');
    const row = this.find(caller, threadId, messageId);
    if (!row) throw notFound(MESSAGE_NOT_FOUND.delete);
    row.deleted = true;
    return { id: messageId, object: 'thread.message.deleted' as const, deleted: true as const };
  }
}

const item = (row: StoredMessage) => ({
  id: row.id,
  createdAt: row.createdAt.toISOString(),
  threadId: row.threadId,
  content: row.content,
  requestLogId: null,
  metadata: row.metadata,
});

/** The deployments the fake registry knows: an assistant and a prompt, each with a template reading a variable. */
export const DEPLOYMENTS: Record<string, { kind: PromptKind; template: ChatMessage[]; defaults: Record<string, string> }> = {
  helper: { kind: 'assistant', template: [{ role: 'system', content: 'Help with {{topic}}.' }], defaults: { tone: 'warm' } },
  summarize: { kind: 'prompt', template: [{ role: 'system', content: 'Summarize for {{audience}}.' }], defaults: {} },
};
export const ENVIRONMENT = 'production';

/**
 * InvocationService's three methods the spec's invoke transport calls: `resolve` finds the two
 * deployments above (the real SpecInvokeParser then validates the body against them), `prepare`
 * continues a thread of the fake ThreadsService or refuses with the real ThreadNotFound, `run`
 * answers a fixed completion. Real conditions: test/invoke-validation.e2e-spec.ts,
 * test/invoke-assistant.e2e-spec.ts.
 */
export class FakeInvocation extends Failing implements Pick<InvocationService, 'resolve' | 'prepare' | 'run'> {
  constructor(private readonly threads: FakeThreads) {
    super();
  }

  async resolve(_caller: ProjectPrincipal, target: InvokeTarget): Promise<ResolvedTarget | null> {
    this.called('resolve');
    const found = target.type === 'deployment' && target.environment === ENVIRONMENT ? DEPLOYMENTS[target.slug] : undefined;
    if (!found || target.type !== 'deployment') return null;
    const compiled = compileTemplate(found.template);
    const provider = { name: 'local', type: 'local' as const, credentialId: null };
    return {
      deployment: {
        kind: found.kind,
        promptId: randomUUID(),
        promptSlug: target.slug,
        environment: target.environment,
        deploymentId: randomUUID(),
        deploymentVersion: 1,
        pinned: false,
        versionId: randomUUID(),
        version: 1,
        contentHash: '0'.repeat(64),
        template: found.template,
        compiled,
        declaredVariables: [...new Set([...compiled.variables, ...Object.keys(found.defaults)])].sort(),
        variableDefaults: found.defaults,
        provider,
        model: 'local-echo',
        parameters: {},
        tools: [],
      },
      provider,
      model: 'local-echo',
      kind: found.kind,
      slug: target.slug,
      environment: target.environment,
    };
  }

  async prepare(caller: ProjectPrincipal, input: InvocationInput): Promise<PreparedInvocation> {
    this.called('prepare');
    let threadId: string | null = null;
    if (input.thread && 'continue' in input.thread) {
      threadId = input.thread.continue;
      try {
        this.threads.live(caller.projectId, threadId);
      } catch {
        // The real service answers an unknown, deleted or foreign thread with this (invocation.service.ts).
        throw threadNotFound();
      }
    } else if (input.thread) {
      threadId = randomUUID();
    }
    return {
      input,
      logId: randomUUID(),
      threadId,
      newThread: input.thread !== null && 'create' in input.thread,
      variables: input.variables,
      parameters: {},
      request: { model: 'local-echo', messages: [] },
    };
  }

  async run(_caller: ProjectPrincipal, prepared: PreparedInvocation): Promise<CompletionResult> {
    this.called('run');
    return {
      type: 'completion',
      threadId: prepared.threadId,
      completion: {
        id: 'chatcmpl-controller-tier',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'local-echo',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      },
    };
  }
}

interface IdempotencyRow {
  hash: string;
  outcome?: StoredOutcome;
}

/**
 * IdempotencyService as the interceptor uses it, on a Map: the first request with a key runs, the
 * same key and request while it runs is the caller's 409, with another request its 422, and after
 * it a replay. Real conditions: test/idempotency.e2e-spec.ts.
 */
export class FakeIdempotency implements Pick<
  IdempotencyService,
  'hashOf' | 'outcomeOf' | 'opened' | 'claim' | 'complete' | 'settleFailure'
> {
  readonly rows = new Map<string, IdempotencyRow>();

  hashOf(...parts: unknown[]): string {
    return JSON.stringify(parts);
  }

  outcomeOf(_scopeId: string, _key: string, status: number, body: unknown): StoredOutcome {
    return { kind: 'response', status, body };
  }

  opened(_scopeId: string, _key: string, outcome: StoredOutcome): StoredOutcome {
    return outcome;
  }

  async claim(scopeId: string, key: string, requestHash: string, errors: IdempotencyErrors): Promise<Claim> {
    const row = this.rows.get(`${scopeId}/${key}`);
    if (!row) {
      this.rows.set(`${scopeId}/${key}`, { hash: requestHash });
      return { type: 'new' };
    }
    if (row.hash !== requestHash) throw errors.mismatch();
    if (!row.outcome) throw errors.inFlight();
    return { type: 'replay', outcome: row.outcome };
  }

  async complete(scopeId: string, key: string, outcome: StoredOutcome): Promise<void> {
    const row = this.rows.get(`${scopeId}/${key}`);
    if (row) row.outcome = outcome;
  }

  /** As the real one: a refusal a retry would meet again is kept (4xx but 408/409/429/499), anything else frees the key. */
  async settleFailure(scopeId: string, key: string, err: unknown): Promise<void> {
    const status = err instanceof ApiException ? err.getStatus() : 500;
    if (err instanceof ApiException && status >= 400 && status < 500 && ![408, 409, 429, 499].includes(status)) {
      await this.complete(scopeId, key, { kind: 'error', status, body: err.body, headers: err.headers });
    } else {
      this.rows.delete(`${scopeId}/${key}`);
    }
  }
}

/** The one set of fakes an app of this tier is built with; tests reach them to seed state or script a failure. */
export interface Fakes {
  keys: FakeApiKeys;
  threads: FakeThreads;
  messages: FakeMessages;
  invocation: FakeInvocation;
  idempotency: FakeIdempotency;
}

export function createFakes(): Fakes {
  const threads = new FakeThreads();
  return {
    keys: new FakeApiKeys(),
    threads,
    messages: new FakeMessages(threads),
    invocation: new FakeInvocation(threads),
    idempotency: new FakeIdempotency(),
  };
}
