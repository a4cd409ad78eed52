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

  private repo(manager?: EntityManager): Repository<EnvironmentEntity> {
    return manager ? manager.getRepository(EnvironmentEntity) : this.environments;
  }
}
