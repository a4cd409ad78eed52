import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { rowsOf } from '../../jobs/job-queue';
import type { GraderConfig } from './grader.schema';

export interface GraderRow {
  id: string;
  name: string;
  type: string;
  config: GraderConfig;
  threshold: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, type, config, threshold, created_at, updated_at';

/** Named graders per project; every query scoped by project. */
@Injectable()
export class GradersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Creates or replaces the grader `name`; answers the stored row and whether it existed. */
  async upsert(
    manager: EntityManager,
    projectId: string,
    row: Omit<GraderRow, 'created_at' | 'updated_at'>,
  ): Promise<{ row: GraderRow; created: boolean }> {
    const rows = rowsOf<GraderRow & { created: boolean }>(
      await manager.query(
        `INSERT INTO graders AS g (project_id, id, name, type, config, threshold, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now(), now())
         ON CONFLICT (project_id, name) DO UPDATE SET type = EXCLUDED.type, config = EXCLUDED.config, threshold = EXCLUDED.threshold, updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS created`,
        [projectId, row.id, row.name, row.type, JSON.stringify(row.config), row.threshold],
      ),
    );
    const { created, ...stored } = rows[0];
    return { row: stored, created };
  }

  async findByNames(projectId: string, names: string[], manager?: EntityManager): Promise<GraderRow[]> {
    return (manager ?? this.dataSource.manager).query(
      `SELECT ${COLUMNS} FROM graders WHERE project_id = $1 AND name = ANY($2::text[]) ORDER BY name`,
      [projectId, `{${names.map((n) => `"${n}"`).join(',')}}`],
    );
  }

  list(projectId: string, manager?: EntityManager): Promise<GraderRow[]> {
    return (manager ?? this.dataSource.manager).query(`SELECT ${COLUMNS} FROM graders WHERE project_id = $1 ORDER BY name LIMIT 1000`, [
      projectId,
    ]);
  }

  async remove(manager: EntityManager, projectId: string, name: string): Promise<GraderRow | null> {
    const rows = rowsOf<GraderRow>(
      await manager.query(`DELETE FROM graders WHERE project_id = $1 AND name = $2 RETURNING ${COLUMNS}`, [projectId, name]),
    );
    return rows[0] ?? null;
  }
}
