import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { newId } from '../common/ids';

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  active: boolean;
  instance_admin: boolean;
  created_at: Date;
  last_sign_in_at: Date | null;
}

const COLUMNS = 'id, email, name, active, instance_admin, created_at, last_sign_in_at';

/** The instance's users (table `users`, made by the People migration): looked up, made by e-mail, made instance admins. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<UserRow | null> {
    const rows: UserRow[] = await manager.query(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** E-mail addresses are one user whatever their case (users_email_idx is on lower(email)). */
  async findByEmail(email: string, manager: EntityManager = this.dataSource.manager): Promise<UserRow | null> {
    const rows: UserRow[] = await manager.query(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
    return rows[0] ?? null;
  }

  /**
   * The user with this address, made now when there is none: someone given a role before their
   * first sign-in, which then finds this row by its address (docs/security.md, "Roles").
   * A concurrent maker of the same address wins quietly: its row is the one answered.
   */
  async findOrCreateByEmail(manager: EntityManager, email: string): Promise<{ user: UserRow; created: boolean }> {
    const existing = await this.findByEmail(email, manager);
    if (existing) return { user: existing, created: false };
    const inserted: UserRow[] = await manager.query(
      `INSERT INTO users (id, email, created_at) VALUES ($1, $2, $3) ON CONFLICT (lower(email)) DO NOTHING RETURNING ${COLUMNS}`,
      [newId(), email, new Date()],
    );
    if (inserted[0]) return { user: inserted[0], created: true };
    return { user: (await this.findByEmail(email, manager))!, created: false };
  }

  /**
   * Whether a workspace knows this user: a membership or a SCIM record there, or a group role there
   * that one of their groups matches. A workspace's admin reaches these users only.
   */
  async isKnownTo(workspaceId: string, userId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: { known: boolean }[] = await manager.query(
      `SELECT EXISTS (SELECT 1 FROM memberships WHERE workspace_id = $1 AND user_id = $2)
           OR EXISTS (SELECT 1 FROM scim_users WHERE workspace_id = $1 AND user_id = $2)
           OR EXISTS (SELECT 1 FROM group_roles g JOIN user_claim_groups c ON c.name = g.group_name
                       WHERE g.workspace_id = $1 AND c.user_id = $2)
           OR EXISTS (SELECT 1 FROM group_roles g
                        JOIN scim_groups sg ON sg.workspace_id = g.workspace_id AND lower(sg.display_name) = lower(g.group_name)
                        JOIN scim_group_members sm ON sm.group_id = sg.id
                       WHERE g.workspace_id = $1 AND sm.user_id = $2) AS known`,
      [workspaceId, userId],
    );
    return rows[0].known;
  }

  /** Every user, oldest first (ids are UUIDv7); `limit + 1` rows for the page's has_more. */
  list(after: string | null, limit: number): Promise<UserRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM users WHERE ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2`, [
      after,
      limit + 1,
    ]);
  }

  async setInstanceAdmin(manager: EntityManager, id: string, value: boolean): Promise<UserRow> {
    await manager.query('UPDATE users SET instance_admin = $2 WHERE id = $1', [id, value]);
    return (await this.findById(id, manager))!;
  }

  /**
   * Active instance admins other than this user. Every admin's row is locked in id order, so two
   * admins leaving at once wait for each other (no deadlock) and the second sees the first gone.
   */
  async otherInstanceAdmins(manager: EntityManager, id: string): Promise<number> {
    const rows: { id: string }[] = await manager.query('SELECT id FROM users WHERE instance_admin AND active ORDER BY id FOR UPDATE');
    return rows.filter((row) => row.id !== id).length;
  }
}
