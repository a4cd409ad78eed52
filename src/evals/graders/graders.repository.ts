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

  /**
   * Creates or replaces the grader `name`; answers the stored row and whether it was created. Not
   * one upsert reading `xmax`: PostgreSQL refuses system columns of a partitioned table
   * (SCHEMA_MODE=partitioned). A row deleted between the two statements is inserted again.
   */
  async upsert(
    manager: EntityManager,
    projectId: string,
    row: Omit<GraderRow, 'created_at' | 'updated_at'>,
  ): Promise<{ row: GraderRow; created: boolean }> {
    const values = [projectId, row.id, row.name, row.type, JSON.stringify(row.config), row.threshold];
    for (;;) {
      const inserted = rowsOf<GraderRow>(
        await manager.query(
          `INSERT INTO graders (project_id, id, name, type, config, threshold, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now(), now())
           ON CONFLICT (project_id, name) DO NOTHING RETURNING ${COLUMNS}`,
          values,
        ),
      );
      if (inserted.length) return { row: inserted[0], created: true };
      const updated = rowsOf<GraderRow>(
        await manager.query(
          `UPDATE graders SET type = $4, config = $5, threshold = $6, updated_at = now() WHERE project_id = $1 AND name = $3 AND $2::uuid IS NOT NULL
           RETURNING ${COLUMNS}`,
          values,
        ),
      );
      if (updated.length) return { row: updated[0], created: false };
    }
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
