import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Principal, reachesWorkspace } from '../auth/principal';
import { notFound } from '../common/errors';
import { isSlugLike } from '../common/validation';
import { assertOwnProject, isInstanceAdmin, MEMBER_ERRORS, UserRef } from './member-rules';
import type { MemberPlace } from './member-writes';
import { UserRow, UsersRepository } from './users.repository';

/**
 * Where a members route acts, as the caller may reach it: a workspace (its admin key, its admins,
 * the instance's admin) or one of its projects (also a key or person acting in that project). Any
 * other is not found, as if it did not exist.
 */
@Injectable()
export class MemberPlaces {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
  ) {}

  async workspace(caller: Principal, slug: string, manager = this.dataSource.manager): Promise<MemberPlace['workspace']> {
    const rows: { id: string; slug: string }[] = isSlugLike(slug)
      ? await manager.query('SELECT id, slug FROM workspaces WHERE slug = $1', [slug])
      : [];
    if (!rows[0] || !reachesWorkspace(caller, rows[0].id)) throw notFound(MEMBER_ERRORS.workspaceNotFound);
    return rows[0];
  }

  /** The workspace alone (`projectSlug` undefined), or the project in it. */
  async place(caller: Principal, workspaceSlug: string, projectSlug?: string, manager = this.dataSource.manager): Promise<MemberPlace> {
    if (projectSlug === undefined) return { workspace: await this.workspace(caller, workspaceSlug, manager), project: null };
    assertOwnProject(caller, workspaceSlug, projectSlug);
    const workspace = await this.workspace(caller, workspaceSlug, manager);
    return { workspace, project: await this.project(workspace, projectSlug, manager) };
  }

  async project(workspace: MemberPlace['workspace'], slug: string, manager = this.dataSource.manager): Promise<MemberPlace['project']> {
    const rows: { id: string; slug: string }[] = isSlugLike(slug)
      ? await manager.query('SELECT id, slug FROM projects WHERE workspace_id = $1 AND slug = $2', [workspace.id, slug])
      : [];
    if (!rows[0]) throw notFound(MEMBER_ERRORS.projectNotFound);
    return rows[0];
  }

  /**
   * The user a path names, as this caller may reach them: by id, a user this workspace knows (any
   * user for the instance's admin); by address, anyone (found, or null when there is none yet).
   */
  async user(caller: Principal, workspaceId: string, ref: UserRef, manager: EntityManager): Promise<UserRow | null> {
    if (ref.email !== undefined) return this.users.findByEmail(ref.email, manager);
    const user = await this.users.findById(ref.id, manager);
    if (!user || (!isInstanceAdmin(caller) && !(await this.users.isKnownTo(workspaceId, user.id, manager)))) {
      throw notFound(MEMBER_ERRORS.userNotFound);
    }
    return user;
  }
}
