import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { badRequest, conflict, invalidBody, notFound } from '../../common/errors';
import { isUuid, newId } from '../../common/ids';
import { pageLimit, PageQuery, toPage } from '../../common/pagination';
import { CreateTransaction, plainTransaction } from '../../idempotency/create-transaction';
import { LOCAL_PROVIDER, ProviderCredentialsService } from '../../provider-credentials/provider-credentials.service';
import { embeddingTargetProblem } from '../../providers';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { routingIssues } from '../content/routing-check';
import { ContentIssue, formatIssue, PreparedVersion, prepareVersionContent } from '../content/version-content';
import { VersionContent } from '../content/version-content.schema';
import { PromptKind } from '../resolved-deployment';
import { CreateVersionDto, VersionDto, VersionListDto } from './dto/version.dto';
import { PromptEntity } from './prompt.entity';
import { PromptVersionEntity } from './prompt-version.entity';
import { toVersionDto } from './prompts.mapper';
import { PromptsRepository } from './prompts.repository';
import { archivedMessage, PromptsService } from './prompts.service';
import { VersionsRepository } from './versions.repository';

const VERSION_NOT_FOUND = 'Version not found';
const VERSION_NUMBER = /^[1-9][0-9]{0,8}$/;

/** Immutable, numbered versions. Nothing here updates a version: a change is always a new one. */
@Injectable()
export class VersionsService {
  constructor(
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
    private readonly prompts: PromptsService,
    private readonly promptsRepo: PromptsRepository,
    private readonly versions: VersionsRepository,
    private readonly credentials: ProviderCredentialsService,
    private readonly cache: RegistryCache,
  ) {}

  /** Validates, compiles (a template that does not compile is a 400 naming the line) and stores version N+1. */
  async create(
    projectId: string,
    slug: string,
    dto: CreateVersionDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<VersionDto> {
    const { message, ...content } = dto;
    const created = await tx.run(async (manager) => {
      const prompt = await this.prompts.require(projectId, slug, manager);
      if (prompt.archivedAt) throw conflict(archivedMessage(slug, 'add versions'));
      const prepared = prepareVersionContent({ ...content }, prompt.kind);
      if (!prepared.ok) throw invalidBody(prepared.issues.map((issue) => formatIssue(issue)));
      const problems = await this.providerProblems(projectId, prompt.kind, prepared.value.content, manager);
      if (problems.length > 0) throw invalidBody(problems.map((problem) => formatIssue(problem)));
      const version = await this.insertPrepared(manager, prompt, prepared.value, message ?? null);
      await this.cache.announce(projectId, manager);
      return toVersionDto(version, prompt);
    });
    this.cache.invalidateProject(projectId);
    return created;
  }

  /**
   * Why the content's providers cannot serve it: not a provider of the project; a routing target
   * whose type cannot honour the version's tools, response format or reasoning (routing-check.ts);
   * or (an embedding entry) one that cannot embed with that model and size. `parley apply` checks the same.
   */
  async providerProblems(projectId: string, kind: PromptKind, content: VersionContent, manager?: EntityManager): Promise<ContentIssue[]> {
    const typeOf = async (provider: string) =>
      provider === LOCAL_PROVIDER ? 'local' : (await this.credentials.findByName(projectId, provider, manager))?.type;
    if (content.routing) {
      const types = new Map<string, string | undefined>();
      for (const { provider } of content.routing.targets) if (!types.has(provider)) types.set(provider, await typeOf(provider));
      return routingIssues(content, (provider) => types.get(provider));
    }
    const { provider, model, parameters } = content;
    const type = await typeOf(provider);
    if (!type)
      return [{ path: ['provider'], message: `no provider "${provider}" in this project (use "local" or create a provider credential)` }];
    if (kind !== 'embedding') return [];
    const problem = embeddingTargetProblem(type, provider, model, parameters.dimensions);
    return problem ? [{ path: problem.param === 'model' ? ['model'] : ['parameters', 'dimensions'], message: problem.message }] : [];
  }

  /** Stores prepared content as the prompt's next version; run inside the caller's transaction. */
  async insertPrepared(
    manager: EntityManager,
    prompt: PromptEntity,
    prepared: PreparedVersion,
    message: string | null,
  ): Promise<PromptVersionEntity> {
    const now = new Date();
    const number = await this.promptsRepo.takeNextVersion(manager, prompt.projectId, prompt.id, now);
    prompt.lastVersion = number;
    const { template, provider, model, parameters, tools, variables, routing, cache } = prepared.content;
    const version = Object.assign(new PromptVersionEntity(), {
      projectId: prompt.projectId,
      id: newId(),
      promptId: prompt.id,
      version: number,
      contentHash: prepared.contentHash,
      template,
      provider,
      model,
      parameters,
      tools,
      variables,
      declaredVariables: prepared.declaredVariables,
      routing: routing ?? null,
      responseCache: cache ?? null,
      message,
      createdAt: now,
    });
    const inserted = await this.versions.insert(version, manager);
    await this.audit.record(manager, {
      projectId: prompt.projectId,
      action: 'version.created',
      resourceType: 'version',
      resourceId: `${prompt.slug}@${number}`,
      after: { prompt: prompt.slug, version: number, contentHash: prepared.contentHash, provider, model, message },
    });
    return inserted;
  }

  async list(projectId: string, slug: string, query: PageQuery): Promise<VersionListDto> {
    const prompt = await this.prompts.require(projectId, slug);
    const limit = pageLimit(query);
    let before: number | undefined;
    if (query.after !== undefined) {
      const cursor = isUuid(query.after) ? await this.versions.findById(projectId, query.after) : null;
      if (!cursor || cursor.promptId !== prompt.id) throw badRequest('Invalid request parameters', ['after: not a version of this prompt']);
      before = cursor.version;
    }
    const rows = await this.versions.list(projectId, prompt.id, before, limit + 1);
    return {
      object: 'list',
      ...toPage(
        rows.map((v) => toVersionDto(v, prompt)),
        limit,
      ),
    };
  }

  async get(projectId: string, slug: string, version: string): Promise<VersionDto> {
    const prompt = await this.prompts.require(projectId, slug);
    const found = VERSION_NUMBER.test(version) ? await this.versions.findByNumber(projectId, prompt.id, Number(version)) : null;
    if (!found) throw notFound(VERSION_NOT_FOUND);
    return toVersionDto(found, prompt);
  }

  findByNumber(projectId: string, promptId: string, version: number, manager?: EntityManager): Promise<PromptVersionEntity | null> {
    return this.versions.findByNumber(projectId, promptId, version, manager);
  }

  findNewestByHash(projectId: string, promptId: string, hash: string, manager?: EntityManager): Promise<PromptVersionEntity | null> {
    return this.versions.findNewestByHash(projectId, promptId, hash, manager);
  }

  listByIds(projectId: string, ids: string[], manager?: EntityManager): Promise<PromptVersionEntity[]> {
    return this.versions.listByIds(projectId, ids, manager);
  }
}
