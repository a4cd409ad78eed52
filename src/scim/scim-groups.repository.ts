import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { isUuid } from '../common/ids';
import { checkGroupFilter, ScimGroupState } from './scim-group-input';
import { Condition } from './scim-path';
import type { ScimGroupRow } from './scim-resources';

export interface GroupMember {
  user_id: string;
  user_name: string;
}

const COLUMNS = 'g.id, g.display_name, g.external_id, g.created_at, g.updated_at';

/** A filter's comparisons as SQL on `scim_groups g`: displayName in any case, externalId exactly, a member by id. */
function whereOf(conditions: Condition[], params: unknown[]): string[] {
  const param = (value: unknown) => `$${params.push(value)}`;
  return checkGroupFilter(conditions).map(({ attribute, value }) => {
    if (attribute === 'displayname') return `lower(g.display_name) = lower(${param(value)})`;
    if (attribute === 'externalid') return `g.external_id = ${param(value)}`;
    if (attribute === 'id') return isUuid(value) ? `g.id = ${param(value)}::uuid` : 'false';
    // members, members.value (checkGroupFilter let nothing else through).
    return isUuid(value)
      ? `EXISTS (SELECT 1 FROM scim_group_members m WHERE m.group_id = g.id AND m.user_id = ${param(value)}::uuid)`
      : 'false';
  });
}

/** scim_groups and scim_group_members of one workspace's directory; every query is scoped to the token's workspace. */
@Injectable()
export class ScimGroupsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(workspaceId: string, groupId: string, manager?: EntityManager, forUpdate = false): Promise<ScimGroupRow | null> {
    if (!isUuid(groupId)) return null;
    const rows: ScimGroupRow[] = await (manager ?? this.dataSource.manager).query(
      `SELECT ${COLUMNS} FROM scim_groups g WHERE g.workspace_id = $1 AND g.id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, groupId],
    );
    return rows[0] ?? null;
  }

  async list(
    workspaceId: string,
    conditions: Condition[],
    offset: number,
    limit: number,
  ): Promise<{ rows: ScimGroupRow[]; total: number }> {
    const params: unknown[] = [workspaceId];
    const where = ['g.workspace_id = $1', ...whereOf(conditions, params)].join(' AND ');
    const [count]: { n: number }[] = await this.dataSource.query(`SELECT count(*)::int AS n FROM scim_groups g WHERE ${where}`, params);
    const rows: ScimGroupRow[] =
      limit === 0
        ? []
        : await this.dataSource.query(
            `SELECT ${COLUMNS} FROM scim_groups g WHERE ${where} ORDER BY g.created_at, g.id OFFSET ${offset} LIMIT ${limit}`,
            params,
          );
    return { rows, total: count.n };
  }

  /** The members of each group, with their userName in this workspace's directory. */
  async members(workspaceId: string, groupIds: string[], manager?: EntityManager): Promise<Map<string, GroupMember[]>> {
    const found = new Map<string, GroupMember[]>(groupIds.map((id) => [id, []]));
    if (groupIds.length === 0) return found;
    const rows: (GroupMember & { group_id: string })[] = await (manager ?? this.dataSource.manager).query(
      `SELECT m.group_id, m.user_id, s.user_name
         FROM scim_group_members m JOIN scim_users s ON s.workspace_id = $1 AND s.user_id = m.user_id
        WHERE m.group_id = ANY($2::uuid[])
        ORDER BY m.group_id, s.created_at, m.user_id`,
      [workspaceId, groupIds],
    );
    for (const row of rows) found.get(row.group_id)?.push({ user_id: row.user_id, user_name: row.user_name });
    return found;
  }

  async nameTaken(manager: EntityManager, workspaceId: string, displayName: string, exceptId: string | null): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      'SELECT 1 FROM scim_groups WHERE workspace_id = $1 AND lower(display_name) = lower($2) AND id IS DISTINCT FROM $3::uuid',
      [workspaceId, displayName, exceptId],
    );
    return rows.length > 0;
  }

  async insert(manager: EntityManager, workspaceId: string, groupId: string, state: ScimGroupState, now: Date): Promise<void> {
    await manager.query(
      `INSERT INTO scim_groups (id, workspace_id, display_name, external_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`,
      [groupId, workspaceId, state.displayName, state.externalId, now],
    );
  }

  async update(manager: EntityManager, workspaceId: string, groupId: string, state: ScimGroupState, now: Date): Promise<void> {
    await manager.query('UPDATE scim_groups SET display_name = $3, external_id = $4, updated_at = $5 WHERE workspace_id = $1 AND id = $2', [
      workspaceId,
      groupId,
      state.displayName,
      state.externalId,
      now,
    ]);
  }

  async changeMembers(manager: EntityManager, groupId: string, added: string[], removed: string[]): Promise<void> {
    if (removed.length > 0) {
      await manager.query('DELETE FROM scim_group_members WHERE group_id = $1 AND user_id = ANY($2::uuid[])', [groupId, removed]);
    }
    if (added.length > 0) {
      await manager.query(
        'INSERT INTO scim_group_members (group_id, user_id) SELECT $1, u FROM unnest($2::uuid[]) AS u ON CONFLICT DO NOTHING',
        [groupId, added],
      );
    }
  }

  /** The group and (cascading) its memberships. */
  async delete(manager: EntityManager, workspaceId: string, groupId: string): Promise<void> {
    await manager.query('DELETE FROM scim_groups WHERE workspace_id = $1 AND id = $2', [workspaceId, groupId]);
  }
}
