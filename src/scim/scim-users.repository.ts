import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { isUuid } from '../common/ids';
import { Condition } from './scim-path';
import { returnedRows } from './scim-sql';
import { checkUserFilter, ScimEmail, ScimUserState } from './scim-user-input';

export interface ScimUserRow {
  user_id: string;
  user_name: string;
  external_id: string | null;
  given_name: string | null;
  family_name: string | null;
  display_name: string | null;
  emails: ScimEmail[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'user_id, user_name, external_id, given_name, family_name, display_name, emails, active, created_at, updated_at';

export const stateOf = (row: ScimUserRow): ScimUserState => ({
  userName: row.user_name,
  externalId: row.external_id,
  givenName: row.given_name,
  familyName: row.family_name,
  displayName: row.display_name,
  emails: row.emails,
  active: row.active,
});

/**
 * A filter's comparisons as SQL on `scim_users s` (docs/security.md, "SCIM": userName and the
 * e-mails compare in any case, externalId exactly); comparisons in one bracket hold for the same
 * address. Parameters are appended to `params`.
 */
function whereOf(conditions: Condition[], params: unknown[]): string[] {
  const clauses: string[] = [];
  const emailGroups = new Map<number, string[]>();
  const param = (value: unknown) => `$${params.push(value)}`;
  for (const { attribute, value, group } of checkUserFilter(conditions)) {
    const field = attribute === 'emails' ? 'emails.value' : attribute;
    if (field === 'username') clauses.push(`lower(s.user_name) = lower(${param(value)})`);
    else if (field === 'externalid') clauses.push(`s.external_id = ${param(value)}`);
    else if (field === 'id') clauses.push(isUuid(value) ? `s.user_id = ${param(value)}::uuid` : 'false');
    else {
      // emails.value, emails.type, emails.primary: checkUserFilter let nothing else through.
      const sub = field.slice('emails.'.length);
      const test = sub === 'primary' ? `(e->>'primary')::boolean = ${param(value)}` : `lower(e->>'${sub}') = lower(${param(value)})`;
      emailGroups.set(group, [...(emailGroups.get(group) ?? []), test]);
    }
  }
  for (const tests of emailGroups.values()) {
    clauses.push(`EXISTS (SELECT 1 FROM jsonb_array_elements(s.emails) e WHERE ${tests.join(' AND ')})`);
  }
  return clauses;
}

/**
 * scim_users (a workspace directory's record of each user it provisioned) and the instance-wide
 * users row behind it. Every query is scoped to the token's workspace.
 */
@Injectable()
export class ScimUsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(workspaceId: string, userId: string, manager?: EntityManager, forUpdate = false): Promise<ScimUserRow | null> {
    if (!isUuid(userId)) return null;
    const rows: ScimUserRow[] = await (manager ?? this.dataSource.manager).query(
      `SELECT ${COLUMNS} FROM scim_users WHERE workspace_id = $1 AND user_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, userId],
    );
    return rows[0] ?? null;
  }

  /** One page, oldest first, and how many match in all. */
  async list(workspaceId: string, conditions: Condition[], offset: number, limit: number): Promise<{ rows: ScimUserRow[]; total: number }> {
    const params: unknown[] = [workspaceId];
    const where = ['s.workspace_id = $1', ...whereOf(conditions, params)].join(' AND ');
    const [count]: { n: number }[] = await this.dataSource.query(`SELECT count(*)::int AS n FROM scim_users s WHERE ${where}`, params);
    const rows: ScimUserRow[] =
      limit === 0
        ? []
        : await this.dataSource.query(
            `SELECT ${COLUMNS} FROM scim_users s WHERE ${where} ORDER BY s.created_at, s.user_id OFFSET ${offset} LIMIT ${limit}`,
            params,
          );
    return { rows, total: count.n };
  }

  /** Which unique attribute another user of this directory already holds: userName (any case) or externalId. */
  async takenBy(manager: EntityManager, workspaceId: string, state: ScimUserState, exceptUserId: string | null): Promise<string | null> {
    const rows: { user_name: string; external_id: string | null }[] = await manager.query(
      `SELECT user_name, external_id FROM scim_users
        WHERE workspace_id = $1 AND user_id IS DISTINCT FROM $2::uuid AND (lower(user_name) = lower($3) OR external_id = $4)
        LIMIT 2`,
      [workspaceId, exceptUserId, state.userName, state.externalId],
    );
    if (rows.some((row) => row.user_name.toLowerCase() === state.userName.toLowerCase())) return 'userName';
    return rows.length > 0 ? 'externalId' : null;
  }

  /** The instance's user with this e-mail (any case), made if there is none; locked until the transaction ends. */
  async userForEmail(manager: EntityManager, newUser: { id: string; email: string; name: string | null; now: Date }): Promise<string> {
    await manager.query(`INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT ((lower(email))) DO NOTHING`, [
      newUser.id,
      newUser.email,
      newUser.name,
      newUser.now,
    ]);
    const rows: { id: string }[] = await manager.query('SELECT id FROM users WHERE lower(email) = lower($1) FOR UPDATE', [newUser.email]);
    return rows[0].id;
  }

  async insert(manager: EntityManager, workspaceId: string, userId: string, state: ScimUserState, now: Date): Promise<void> {
    await manager.query(
      `INSERT INTO scim_users (workspace_id, user_id, user_name, external_id, given_name, family_name, display_name, emails, active,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $10)`,
      [workspaceId, userId, ...values(state), now],
    );
  }

  async update(manager: EntityManager, workspaceId: string, userId: string, state: ScimUserState, now: Date): Promise<void> {
    await manager.query(
      `UPDATE scim_users SET user_name = $3, external_id = $4, given_name = $5, family_name = $6, display_name = $7, emails = $8::jsonb,
         active = $9, updated_at = $10
       WHERE workspace_id = $1 AND user_id = $2`,
      [workspaceId, userId, ...values(state), now],
    );
  }

  /**
   * Writes the directory's e-mail and name to the instance-wide user, only while this workspace's
   * directory is the only thing that knows them: no other workspace's directory or membership, not
   * an instance admin, never signed in. Otherwise one workspace's directory would rename a person
   * for every other (docs/security.md, "SCIM"). Another user holding the e-mail is a unique violation (409).
   */
  async syncPerson(manager: EntityManager, workspaceId: string, userId: string, email: string, name: string | null): Promise<void> {
    await manager.query(
      `UPDATE users u SET email = $3, name = $4
        WHERE u.id = $2 AND NOT u.instance_admin AND u.oidc_subject IS NULL AND u.last_sign_in_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM scim_users s WHERE s.user_id = u.id AND s.workspace_id <> $1)
          AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.workspace_id <> $1)
          AND (u.email IS DISTINCT FROM $3 OR u.name IS DISTINCT FROM $4)`,
      [workspaceId, userId, email, name],
    );
  }

  /** Unmakes the user an instance admin; their e-mail when they were one, null otherwise. */
  async revokeInstanceAdmin(manager: EntityManager, userId: string): Promise<string | null> {
    const result: unknown[] = await manager.query(
      'UPDATE users SET instance_admin = false WHERE id = $1 AND instance_admin RETURNING email',
      [userId],
    );
    return returnedRows<{ email: string }>(result)[0]?.email ?? null;
  }

  /** The user's SCIM record, memberships and SCIM group memberships in this workspace; the user row stays. */
  async removeFromWorkspace(manager: EntityManager, workspaceId: string, userId: string): Promise<{ groups: number; memberships: number }> {
    const groups: unknown[] = await manager.query(
      `DELETE FROM scim_group_members gm USING scim_groups g
        WHERE gm.group_id = g.id AND g.workspace_id = $1 AND gm.user_id = $2 RETURNING gm.group_id`,
      [workspaceId, userId],
    );
    const memberships: unknown[] = await manager.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2 RETURNING id', [
      workspaceId,
      userId,
    ]);
    await manager.query('DELETE FROM scim_users WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
    return { groups: returnedRows(groups).length, memberships: returnedRows(memberships).length };
  }

  /**
   * Of `userIds`, those this workspace's directory provisioned. Their rows stay locked (FOR KEY
   * SHARE) until the transaction ends: a user DELETE, which locks the row FOR UPDATE first, waits
   * for a group change adding them and then removes that membership too, or goes first and the
   * group change no longer finds them. Otherwise a group add racing a delete kept a member row for
   * a user the directory no longer has.
   */
  async provisioned(manager: EntityManager, workspaceId: string, userIds: string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows: { user_id: string }[] = await manager.query(
      'SELECT user_id FROM scim_users WHERE workspace_id = $1 AND user_id = ANY($2::uuid[]) ORDER BY user_id FOR KEY SHARE',
      [workspaceId, userIds],
    );
    return new Set(rows.map((row) => row.user_id));
  }
}

const values = (s: ScimUserState) => [
  s.userName,
  s.externalId,
  s.givenName,
  s.familyName,
  s.displayName,
  JSON.stringify(s.emails),
  s.active,
];
