import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, LessThan, Repository } from 'typeorm';

import { PromptVersionEntity } from './prompt-version.entity';

/** Version queries, each scoped by project_id. Versions are only ever inserted. */
@Injectable()
export class VersionsRepository {
  constructor(@InjectRepository(PromptVersionEntity) private readonly versions: Repository<PromptVersionEntity>) {}

  insert(version: PromptVersionEntity, manager: EntityManager): Promise<PromptVersionEntity> {
    return manager.getRepository(PromptVersionEntity).save(version);
  }

  findByNumber(projectId: string, promptId: string, version: number, manager?: EntityManager): Promise<PromptVersionEntity | null> {
    return this.repo(manager).findOne({ where: { projectId, promptId, version } });
  }

  /** Several versions of one prompt by number, in one query (a split's arms). */
  findByNumbers(projectId: string, promptId: string, versions: number[], manager?: EntityManager): Promise<PromptVersionEntity[]> {
    return this.repo(manager).find({ where: { projectId, promptId, version: In(versions) } });
  }

  findById(projectId: string, id: string, manager?: EntityManager): Promise<PromptVersionEntity | null> {
    return this.repo(manager).findOne({ where: { projectId, id } });
  }

  /** The newest version with this content, if any (index prompt_versions_hash_idx). */
  findNewestByHash(projectId: string, promptId: string, contentHash: string, manager?: EntityManager): Promise<PromptVersionEntity | null> {
    return this.repo(manager).findOne({ where: { projectId, promptId, contentHash }, order: { version: 'DESC' } });
  }

  /** Newest first; `beforeVersion` continues after the last version of the previous page. */
  list(projectId: string, promptId: string, beforeVersion: number | undefined, take: number): Promise<PromptVersionEntity[]> {
    return this.versions.find({
      where: { projectId, promptId, ...(beforeVersion !== undefined ? { version: LessThan(beforeVersion) } : {}) },
      order: { version: 'DESC' },
      take,
    });
  }

  listByIds(projectId: string, ids: string[], manager?: EntityManager): Promise<PromptVersionEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.repo(manager)
      .createQueryBuilder('v')
      .where('v.project_id = :projectId AND v.id IN (:...ids)', { projectId, ids })
      .getMany();
  }

  private repo(manager?: EntityManager): Repository<PromptVersionEntity> {
    return manager ? manager.getRepository(PromptVersionEntity) : this.versions;
  }
}
