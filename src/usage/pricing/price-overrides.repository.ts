import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PriceOverrideEntity } from './price-override.entity';

@Injectable()
export class PriceOverridesRepository {
  constructor(@InjectRepository(PriceOverrideEntity) private readonly overrides: Repository<PriceOverrideEntity>) {}

  /** A project's overrides (a handful), by provider and model. */
  listOf(projectId: string): Promise<PriceOverrideEntity[]> {
    return this.overrides.find({ where: { projectId }, order: { providerName: 'ASC', model: 'ASC' } });
  }

  /** Replaces a project's overrides with these, in one transaction (the caller's, when given). */
  async replace(projectId: string, rows: PriceOverrideEntity[], manager?: EntityManager): Promise<void> {
    const work = async (m: EntityManager) => {
      await m.delete(PriceOverrideEntity, { projectId });
      if (rows.length > 0) await m.insert(PriceOverrideEntity, rows);
    };
    if (manager) await work(manager);
    else await this.overrides.manager.transaction(work);
  }
}
