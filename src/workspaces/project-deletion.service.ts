import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { InstanceAuditLog } from '../audit/instance-audit-log';
import { ApiKeysService } from '../auth/api-keys.service';
import { hasSqlState, invalidBody } from '../common/errors';
import { ChangeNotifier } from '../database/changes';
import { RegistryCache } from '../registry-cache/registry-cache';
import { DeleteProjectDto, ProjectDeletedDto } from './dto/workspace.dto';
import { PROJECT_TABLES } from './project-tables';
import { WorkspacesService } from './workspaces.service';

/** A deadlock with a call writing to the project as it goes: the deletion is tried again from the start. */
const ATTEMPTS = 3;
const DEADLOCK = '40P01';

/**
 * DELETE /v2/workspaces/{workspace}/projects/{project} (docs/security.md, "Deleting a project"):
 * every row of the project, in every table (project-tables.ts), its keys and their sessions, and
 * the project itself, with the instance trail's event, in one transaction: all of it or nothing.
 * The project's row is locked first, so a call that would write a row naming it (most project
 * tables have a foreign key to projects) waits for the deletion and then fails; its keys end on
 * every instance when the transaction commits (`api-key` notifications, as a revocation's).
 */
@Injectable()
export class ProjectDeletionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly workspaces: WorkspacesService,
    private readonly keys: ApiKeysService,
    private readonly changes: ChangeNotifier,
    private readonly cache: RegistryCache,
    private readonly instanceAudit: InstanceAuditLog,
  ) {}

  async delete(workspaceSlug: string, projectSlug: string, dto: DeleteProjectDto): Promise<ProjectDeletedDto> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deleteOnce(workspaceSlug, projectSlug, dto);
      } catch (err) {
        if (attempt >= ATTEMPTS || !hasSqlState(err, DEADLOCK)) throw err;
      }
    }
  }

  private async deleteOnce(workspaceSlug: string, projectSlug: string, dto: DeleteProjectDto): Promise<ProjectDeletedDto> {
    let endedKeys: string[] = [];
    let projectId = '';
    const deleted = await this.dataSource.transaction(async (manager) => {
      const { project, workspace } = await this.workspaces.requireProject(workspaceSlug, projectSlug, manager);
      const expected = `${workspace.slug}/${project.slug}`;
      if (dto.confirm !== expected) throw confirmationMismatch(expected);
      projectId = project.id;
      await manager.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [project.id]);
      endedKeys = await this.endKeys(project.id, manager);
      const rows: Record<string, number> = {};
      for (const table of PROJECT_TABLES) {
        const count = deletedCount(await manager.query(`DELETE FROM ${table} WHERE project_id = $1`, [project.id]));
        if (count > 0) rows[table] = count;
      }
      await manager.query('DELETE FROM projects WHERE id = $1', [project.id]);
      // What the project was, and how many rows of each table went with it: its own trail is gone.
      await this.instanceAudit.record(manager, {
        workspaceId: workspace.id,
        action: 'project.deleted',
        resourceType: 'project',
        resourceId: expected,
        before: { id: project.id, slug: project.slug, name: project.name, rows },
        after: null,
      });
      // Every instance drops what it cached of the project (registry, limits).
      await this.cache.announce(project.id, manager);
      await this.changes.publish({ kind: 'limits', projectId: project.id }, manager);
      const total = Object.values(rows).reduce((sum, n) => sum + n, 0);
      return {
        id: project.id,
        workspace: workspace.slug,
        slug: project.slug,
        object: 'project.deleted' as const,
        deleted: true as const,
        deletedRows: total,
      };
    });
    this.keys.forgetKeys(endedKeys);
    this.cache.invalidateProject(projectId);
    return deleted;
  }

  /** The project's keys, revoked or not: each ends on every instance when the deletion commits. */
  private async endKeys(projectId: string, manager: EntityManager): Promise<string[]> {
    const keys: { id: string }[] = await manager.query('SELECT id FROM api_keys WHERE project_id = $1', [projectId]);
    for (const { id } of keys) await this.changes.publish({ kind: 'api-key', keyId: id }, manager);
    return keys.map((key) => key.id);
  }
}

/** The 400 of a confirmation that does not name the project exactly. */
export const confirmationMismatch = (expected: string) =>
  invalidBody([`confirm: must be "${expected}", the workspace and project being deleted, typed in full`]);

/** TypeORM answers a DELETE with [rows, rowCount] on PostgreSQL and on the PGlite pool. */
function deletedCount(result: unknown): number {
  return Array.isArray(result) ? Number(result[1] ?? 0) : 0;
}
