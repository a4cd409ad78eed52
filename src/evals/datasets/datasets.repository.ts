import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { rowsOf } from '../../jobs/job-queue';
import type { DatasetItemInput } from './dataset-item.schema';

export interface DatasetRow {
  id: string;
  name: string;
  description: string;
  version: number;
  item_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface ItemRow {
  id: string;
  since_version: number;
  variables: Record<string, string>;
  messages: unknown[];
  expected: unknown;
  metadata: Record<string, string | number>;
  source: Record<string, unknown> | null;
  created_at: Date;
}

export interface NewItem extends DatasetItemInput {
  id: string;
  source: Record<string, unknown> | null;
}

const ITEM_COLUMNS = 'id, since_version, variables, messages, expected, metadata, source, created_at';
/** Live at version $3: the item's revision that began at or before it and had not ended by it. */
const AT_VERSION = 'since_version <= $3 AND (until_version IS NULL OR until_version > $3)';

/**
 * Datasets and their items, every query scoped by project. An item's revisions live in
 * [since_version, until_version): a version is read without copying, and listing is keyset-paged
 * by item id on the primary key (the live revisions on their partial index).
 */
@Injectable()
export class DatasetsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private q(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  async insert(manager: EntityManager, projectId: string, row: DatasetRow): Promise<void> {
    await manager.query(
      `INSERT INTO datasets (project_id, id, name, description, version, item_count, created_at, updated_at) VALUES ($1, $2, $3, $4, 0, 0, $5, $5)`,
      [projectId, row.id, row.name, row.description, row.created_at],
    );
    await manager.query(
      `INSERT INTO dataset_versions (project_id, dataset_id, version, item_count, change, created_at) VALUES ($1, $2, 0, 0, 'created', $3)`,
      [projectId, row.id, row.created_at],
    );
  }

  async findByName(projectId: string, name: string, manager?: EntityManager, lock = false): Promise<DatasetRow | null> {
    const rows: DatasetRow[] = await this.q(manager).query(
      `SELECT id, name, description, version, item_count, created_at, updated_at FROM datasets WHERE project_id = $1 AND name = $2${lock ? ' FOR UPDATE' : ''}`,
      [projectId, name],
    );
    return rows[0] ?? null;
  }

  async findById(projectId: string, id: string, manager?: EntityManager): Promise<DatasetRow | null> {
    const rows: DatasetRow[] = await this.q(manager).query(
      'SELECT id, name, description, version, item_count, created_at, updated_at FROM datasets WHERE project_id = $1 AND id = $2',
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  list(projectId: string, after: string | null, limit: number): Promise<DatasetRow[]> {
    return this.q().query(
      `SELECT id, name, description, version, item_count, created_at, updated_at FROM datasets
        WHERE project_id = $1 AND ($2::text IS NULL OR name > $2) ORDER BY name LIMIT $3`,
      [projectId, after, limit],
    );
  }

  /** The environments whose deploy gate names the dataset. */
  async gatesUsing(manager: EntityManager, projectId: string, id: string): Promise<string[]> {
    const rows: { slug: string }[] = await manager.query(
      `SELECT e.slug FROM environment_gates g JOIN environments e ON e.project_id = g.project_id AND e.id = g.environment_id
        WHERE g.project_id = $1 AND g.dataset_id = $2 ORDER BY e.slug`,
      [projectId, id],
    );
    return rows.map((row) => row.slug);
  }

  async remove(manager: EntityManager, projectId: string, id: string): Promise<void> {
    for (const table of ['dataset_items', 'dataset_versions'])
      await manager.query(`DELETE FROM ${table} WHERE project_id = $1 AND dataset_id = $2`, [projectId, id]);
    await manager.query('DELETE FROM datasets WHERE project_id = $1 AND id = $2', [projectId, id]);
  }

  /** Records version `version` of the dataset with its item count and what changed. */
  async bump(manager: EntityManager, projectId: string, id: string, version: number, itemCount: number, change: string): Promise<void> {
    const now = new Date();
    await manager.query('UPDATE datasets SET version = $3, item_count = $4, updated_at = $5 WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
      version,
      itemCount,
      now,
    ]);
    await manager.query(
      'INSERT INTO dataset_versions (project_id, dataset_id, version, item_count, change, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [projectId, id, version, itemCount, change, now],
    );
  }

  versions(projectId: string, id: string): Promise<{ version: number; item_count: number; change: string; created_at: Date }[]> {
    return this.q().query(
      'SELECT version, item_count, change, created_at FROM dataset_versions WHERE project_id = $1 AND dataset_id = $2 ORDER BY version DESC LIMIT 100',
      [projectId, id],
    );
  }

  async itemCountAt(projectId: string, id: string, version: number): Promise<number | null> {
    const rows: { item_count: number }[] = await this.q().query(
      'SELECT item_count FROM dataset_versions WHERE project_id = $1 AND dataset_id = $2 AND version = $3',
      [projectId, id, version],
    );
    return rows.length ? Number(rows[0].item_count) : null;
  }

  async versionExists(projectId: string, id: string, version: number): Promise<boolean> {
    const rows = await this.q().query('SELECT 1 FROM dataset_versions WHERE project_id = $1 AND dataset_id = $2 AND version = $3', [
      projectId,
      id,
      version,
    ]);
    return rows.length > 0;
  }

  /** Items opened at `version`, in one statement. */
  async insertItems(manager: EntityManager, projectId: string, datasetId: string, version: number, items: NewItem[]): Promise<void> {
    const now = new Date();
    const params: unknown[] = [projectId, datasetId, version, now];
    const values = items.map((item) => {
      params.push(
        item.id,
        JSON.stringify(item.variables),
        JSON.stringify(item.messages),
        item.expected === undefined ? null : JSON.stringify(item.expected),
      );
      params.push(JSON.stringify(item.metadata), item.source === null ? null : JSON.stringify(item.source));
      const n = params.length;
      return `($1, $2, $${n - 5}, $3, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n}, $4)`;
    });
    await manager.query(
      `INSERT INTO dataset_items (project_id, dataset_id, id, since_version, variables, messages, expected, metadata, source, created_at) VALUES ${values.join(', ')}`,
      params,
    );
  }

  /** Ends the live revision of `itemId` at `version`; answers it (null when there is no such live item). */
  async closeItem(manager: EntityManager, projectId: string, datasetId: string, itemId: string, version: number): Promise<ItemRow | null> {
    const rows = rowsOf<ItemRow>(
      await manager.query(
        `UPDATE dataset_items SET until_version = $4
          WHERE project_id = $1 AND dataset_id = $2 AND id = $3 AND until_version IS NULL RETURNING ${ITEM_COLUMNS}`,
        [projectId, datasetId, itemId, version],
      ),
    );
    return rows[0] ?? null;
  }

  /** Every dataset of the project, by name: parley apply's references and parley export. */
  listAll(projectId: string, manager?: EntityManager): Promise<DatasetRow[]> {
    return this.q(manager).query(
      'SELECT id, name, description, version, item_count, created_at, updated_at FROM datasets WHERE project_id = $1 ORDER BY name',
      [projectId],
    );
  }

  async setDescription(manager: EntityManager, projectId: string, id: string, description: string): Promise<void> {
    await manager.query('UPDATE datasets SET description = $3, updated_at = now() WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
      description,
    ]);
  }

  /** Every live item, by id, in `manager`'s transaction: what parley apply compares a file with and parley export writes. */
  liveItemsIn(manager: EntityManager, projectId: string, datasetId: string): Promise<ItemRow[]> {
    return manager.query(
      `SELECT ${ITEM_COLUMNS} FROM dataset_items WHERE project_id = $1 AND dataset_id = $2 AND until_version IS NULL ORDER BY id`,
      [projectId, datasetId],
    );
  }

  /** Ends the live revisions of `itemIds` at `version`, in one statement (parley apply replacing items). */
  async closeItems(manager: EntityManager, projectId: string, datasetId: string, itemIds: string[], version: number): Promise<void> {
    if (itemIds.length === 0) return;
    await manager.query(
      `UPDATE dataset_items SET until_version = $3 WHERE project_id = $1 AND dataset_id = $2 AND until_version IS NULL AND id = ANY($4::uuid[])`,
      [projectId, datasetId, version, `{${itemIds.join(',')}}`],
    );
  }

  /** The items of `version`, by id, after `after` (keyset). */
  listItems(projectId: string, datasetId: string, version: number, after: string | null, limit: number, live: boolean): Promise<ItemRow[]> {
    return this.q().query(
      `SELECT ${ITEM_COLUMNS} FROM dataset_items
        WHERE project_id = $1 AND dataset_id = $2 AND ${live ? 'until_version IS NULL AND $3::int IS NOT NULL' : AT_VERSION}
          AND ($4::uuid IS NULL OR id > $4) ORDER BY id LIMIT $5`,
      [projectId, datasetId, version, after, limit],
    );
  }

  async findItem(projectId: string, datasetId: string, version: number, itemId: string): Promise<ItemRow | null> {
    const rows: ItemRow[] = await this.q().query(
      `SELECT ${ITEM_COLUMNS} FROM dataset_items WHERE project_id = $1 AND dataset_id = $2 AND ${AT_VERSION} AND id = $4`,
      [projectId, datasetId, version, itemId],
    );
    return rows[0] ?? null;
  }

  /** The items of `version` that run `runId` has not stored yet, by id after `after`: what a (resumed) run still has to do. */
  pendingItems(
    projectId: string,
    datasetId: string,
    version: number,
    runId: string,
    after: string | null,
    limit: number,
  ): Promise<ItemRow[]> {
    return this.q().query(
      `SELECT ${ITEM_COLUMNS} FROM dataset_items i
        WHERE project_id = $1 AND dataset_id = $2 AND ${AT_VERSION} AND ($5::uuid IS NULL OR id > $5)
          AND NOT EXISTS (SELECT 1 FROM eval_run_items r WHERE r.project_id = $1 AND r.run_id = $4 AND r.item_id = i.id)
        ORDER BY id LIMIT $6`,
      [projectId, datasetId, version, runId, after, limit],
    );
  }
}
