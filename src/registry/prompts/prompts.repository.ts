import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, MoreThan, Not, Repository } from 'typeorm';

import { PromptEntity } from './prompt.entity';

/** Prompt queries, each scoped by project_id; `manager` runs them inside a caller's transaction. */
@Injectable()
export class PromptsRepository {
  constructor(@InjectRepository(PromptEntity) private readonly prompts: Repository<PromptEntity>) {}

  insert(prompt: PromptEntity, manager?: EntityManager): Promise<PromptEntity> {
    return this.repo(manager).save(prompt);
  }

  findBySlug(projectId: string, slug: string, manager?: EntityManager): Promise<PromptEntity | null> {
    return this.repo(manager).findOne({ where: { projectId, slug } });
  }

  /** Creation order (ids are time-ordered); `afterId` is the last id of the previous page; live or archived ones. */
  list(projectId: string, afterId: string | undefined, take: number, archived = false): Promise<PromptEntity[]> {
    return this.prompts.find({
      where: { projectId, archivedAt: archived ? Not(IsNull()) : IsNull(), ...(afterId ? { id: MoreThan(afterId) } : {}) },
      order: { id: 'ASC' },
      take,
    });
  }

  /** Archives (a date) or restores (null) it; the caller holds its row lock (`lock`). */
  async setArchived(manager: EntityManager, projectId: string, id: string, at: Date | null, now: Date): Promise<void> {
    await manager.getRepository(PromptEntity).update({ projectId, id }, { archivedAt: at, updatedAt: now });
  }

  listAll(projectId: string, manager?: EntityManager): Promise<PromptEntity[]> {
    return this.repo(manager).find({ where: { projectId }, order: { slug: 'ASC' } });
  }

  /**
   * Takes the next version number. The UPDATE holds the prompt's row lock until the caller's
   * transaction ends, so concurrent version creation queues here and numbers never collide.
   */
  async takeNextVersion(manager: EntityManager, projectId: string, promptId: string, at: Date): Promise<number> {
    const [rows]: [{ last_version: number }[], number] = await manager.query(
      'UPDATE prompts SET last_version = last_version + 1, updated_at = $3 WHERE project_id = $1 AND id = $2 RETURNING last_version',
      [projectId, promptId, at],
    );
    return Number(rows[0].last_version);
  }

  /** Serializes deployments of one prompt (and with version creation) until the transaction ends. */
  async lock(manager: EntityManager, projectId: string, promptId: string): Promise<void> {
    await manager.query('SELECT id FROM prompts WHERE project_id = $1 AND id = $2 FOR UPDATE', [projectId, promptId]);
  }

  private repo(manager?: EntityManager): Repository<PromptEntity> {
    return manager ? manager.getRepository(PromptEntity) : this.prompts;
  }
}
