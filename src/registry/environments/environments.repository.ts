import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';

import { EnvironmentEntity } from './environment.entity';

/** Environment queries, each scoped by project_id; `manager` runs them inside a caller's transaction. */
@Injectable()
export class EnvironmentsRepository {
  constructor(@InjectRepository(EnvironmentEntity) private readonly environments: Repository<EnvironmentEntity>) {}

  insert(rows: EnvironmentEntity[], manager?: EntityManager): Promise<EnvironmentEntity[]> {
    return this.repo(manager).save(rows);
  }

  list(projectId: string, manager?: EntityManager): Promise<EnvironmentEntity[]> {
    return this.repo(manager).find({ where: { projectId }, order: { slug: 'ASC' } });
  }

  findBySlug(projectId: string, slug: string, manager?: EntityManager): Promise<EnvironmentEntity | null> {
    return this.repo(manager).findOne({ where: { projectId, slug } });
  }

  /** Locks the environment's row in `manager`'s transaction (a protection change against a concurrent one). */
  findBySlugForUpdate(manager: EntityManager, projectId: string, slug: string): Promise<EnvironmentEntity | null> {
    return manager.getRepository(EnvironmentEntity).findOne({ where: { projectId, slug }, lock: { mode: 'pessimistic_write' } });
  }

  async setProtection(manager: EntityManager, projectId: string, id: string, requiresApproval: boolean, barsKeys: boolean): Promise<void> {
    await manager.getRepository(EnvironmentEntity).update({ projectId, id }, { requiresApproval, barsKeys });
  }

  private repo(manager?: EntityManager): Repository<EnvironmentEntity> {
    return manager ? manager.getRepository(EnvironmentEntity) : this.environments;
  }
}
