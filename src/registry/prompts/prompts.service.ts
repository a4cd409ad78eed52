import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { badRequest, conflict, isUniqueViolation, notFound } from '../../common/errors';
import { isUuid, newId } from '../../common/ids';
import { pageLimit, toPage } from '../../common/pagination';
import { CreateTransaction } from '../../idempotency/create-transaction';
import { DeploymentsRepository } from '../deployments/deployments.repository';
import { PromptKind } from '../resolved-deployment';
import { isSlugLike } from '../slugs';
import { CreatePromptDto, PromptDto, PromptListDto, PromptsQuery } from './dto/prompt.dto';
import { PromptEntity } from './prompt.entity';
import { toPromptDto } from './prompts.mapper';
import { PromptsRepository } from './prompts.repository';

export const PROMPT_NOT_FOUND = 'Prompt not found';

/** What an archived prompt refuses (docs/registry.md, "Archiving"): `to` says what restoring it is for. */
export const archivedMessage = (slug: string, to: string) =>
  `"${slug}" is archived: restore it (POST /v2/prompts/${slug}/restore) to ${to}`;

/** Prompts and assistants: one slug namespace per project; a prompt's kind never changes. */
@Injectable()
export class PromptsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly prompts: PromptsRepository,
    private readonly deployments: DeploymentsRepository,
  ) {}

  /** In the route's CreateTransaction (docs/security.md, "Idempotency keys"); one insert on its own otherwise. */
  async create(projectId: string, dto: CreatePromptDto, tx?: CreateTransaction): Promise<PromptDto> {
    const create = async (manager?: EntityManager) =>
      toPromptDto(await this.insert(projectId, dto.slug, dto.kind ?? 'prompt', manager), []);
    return tx ? tx.run(create) : create();
  }

  /** With its audit event, in the caller's transaction when given, else in one of its own. */
  async insert(projectId: string, slug: string, kind: PromptKind, manager?: EntityManager): Promise<PromptEntity> {
    if (!manager) return this.dataSource.transaction((own) => this.insert(projectId, slug, kind, own));
    const now = new Date();
    const prompt = Object.assign(new PromptEntity(), {
      projectId,
      id: newId(),
      slug,
      kind,
      lastVersion: 0,
      createdAt: now,
      updatedAt: now,
    });
    // An archived one keeps its slug: say so, and how to bring it back (read before the insert: a failed one ends the transaction).
    const existing = await this.prompts.findBySlug(projectId, slug, manager);
    if (existing?.archivedAt)
      throw conflict(
        `A prompt or assistant with slug "${slug}" already exists and is archived: restore it (POST /v2/prompts/${slug}/restore)`,
      );
    try {
      const inserted = await this.prompts.insert(prompt, manager);
      await this.audit.record(manager, {
        projectId,
        action: 'prompt.created',
        resourceType: 'prompt',
        resourceId: slug,
        after: { slug, kind },
      });
      return inserted;
    } catch (err) {
      // Prompts and assistants share the namespace; inside a failed transaction nothing more can be read.
      if (isUniqueViolation(err)) throw conflict(`A prompt or assistant with slug "${slug}" already exists`);
      throw err;
    }
  }

  async list(projectId: string, query: PromptsQuery): Promise<PromptListDto> {
    const limit = pageLimit(query);
    if (query.after !== undefined && !isUuid(query.after)) throw badRequest('Invalid request parameters', ['after: not a prompt id']);
    const page = toPage(await this.prompts.list(projectId, query.after, limit + 1, query.archived === 'true'), limit);
    // The deployments of this page's prompts only: a page costs the same in a project of any size.
    const current = await this.deployments.listCurrent(projectId, { promptIds: page.data.map((p) => p.id) });
    return { object: 'list', ...page, data: page.data.map((p) => toPromptDto(p, current)) };
  }

  async get(projectId: string, slug: string): Promise<PromptDto> {
    const prompt = await this.require(projectId, slug);
    return toPromptDto(prompt, await this.deployments.listCurrent(projectId, { slug }));
  }

  async require(projectId: string, slug: string, manager?: EntityManager): Promise<PromptEntity> {
    const prompt = isSlugLike(slug) ? await this.prompts.findBySlug(projectId, slug, manager) : null;
    if (!prompt) throw notFound(PROMPT_NOT_FOUND);
    return prompt;
  }

  listAll(projectId: string, manager?: EntityManager): Promise<PromptEntity[]> {
    return this.prompts.listAll(projectId, manager);
  }

  /** Holds the prompt's row lock until `manager`'s transaction ends (before versioning or deploying it). */
  lock(manager: EntityManager, prompt: PromptEntity): Promise<void> {
    return this.prompts.lock(manager, prompt.projectId, prompt.id);
  }
}
