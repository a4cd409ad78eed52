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

  /**
   * Replaces a project's overrides with these, in one transaction (the caller's, when given), and
   * returns them as stored. The project's advisory lock makes concurrent replaces take turns: two
   * delete-then-inserts interleaved broke price_overrides_model_idx (a 500) or could mix sets.
   */
  async replace(projectId: string, rows: PriceOverrideEntity[], manager?: EntityManager): Promise<PriceOverrideEntity[]> {
    const work = async (m: EntityManager) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('price_overrides|' || $1::text, 0))`, [projectId]);
      await m.delete(PriceOverrideEntity, { projectId });
      if (rows.length > 0) await m.insert(PriceOverrideEntity, rows);
      return m.find(PriceOverrideEntity, { where: { projectId }, order: { providerName: 'ASC', model: 'ASC' } });
    };
    return manager ? work(manager) : this.overrides.manager.transaction(work);
  }
}
