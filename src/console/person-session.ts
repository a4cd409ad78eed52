import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { Principal } from '../auth/principal';
import { roleInProject, strongerRole, UserAccess } from '../auth/roles';
import type { ConsoleMembershipDto, ConsoleProjectChoiceDto, ConsoleSessionDto } from './console-session.dto';

/** Projects listed to one person at most (a switcher, not an inventory). */
export const PROJECT_CHOICES_MAX = 500;

interface ProjectRow {
  workspace_id: string;
  workspace_slug: string;
  project_id: string;
  project_slug: string;
}

/**
 * "Who am I" for a person (docs/console.md, "Signing in"): their roles, and the projects they may
 * choose with X-Parley-Project, a workspace-wide role standing for each of its projects.
 */
@Injectable()
export class PersonSessions {
  constructor(private readonly dataSource: DataSource) {}

  async describe(
    person: UserAccess,
    principal: Principal | null,
    expiresAt: Date | null,
  ): Promise<ConsoleSessionDto & Required<Pick<ConsoleSessionDto, 'user' | 'memberships' | 'projects'>>> {
    const project = principal?.kind === 'project' ? principal : null;
    return {
      object: 'console.session',
      kind: 'user',
      workspace: project?.workspaceSlug ?? null,
      project: project?.projectSlug ?? null,
      scopes: project ? (project.scopes ? [...project.scopes] : null) : person.instanceAdmin ? null : [],
      environments: null,
      expiresAt: expiresAt?.toISOString() ?? null,
      user: { id: person.user.id, email: person.user.email, name: person.user.name },
      instanceAdmin: person.instanceAdmin,
      role: project ? roleInProject(person, project.workspaceId, project.projectId) : null,
      memberships: membershipsOf(person),
      projects: await this.projectChoices(person),
    };
  }

  /** The projects a person holds a role in; none listed for an instance admin, who picks among all with the admin routes. */
  private async projectChoices(person: UserAccess): Promise<ConsoleProjectChoiceDto[]> {
    if (person.instanceAdmin || person.grants.length === 0) return [];
    const workspaces = [...new Set(person.grants.filter((g) => g.projectId === null).map((g) => g.workspaceId))];
    const projects = [...new Set(person.grants.flatMap((g) => (g.projectId === null ? [] : [g.projectId])))];
    const rows: ProjectRow[] = await this.dataSource.query(
      `SELECT w.id AS workspace_id, w.slug AS workspace_slug, p.id AS project_id, p.slug AS project_slug
         FROM projects p JOIN workspaces w ON w.id = p.workspace_id
        WHERE p.workspace_id = ANY($1::uuid[]) OR p.id = ANY($2::uuid[])
        ORDER BY w.slug, p.slug
        LIMIT $3`,
      [workspaces, projects, PROJECT_CHOICES_MAX],
    );
    return rows.map((row) => ({
      workspace: row.workspace_slug,
      project: row.project_slug,
      role: roleInProject(person, row.workspace_id, row.project_id)!,
    }));
  }
}

/** The person's grants as slugs, each place once with its strongest role. */
function membershipsOf(person: UserAccess): ConsoleMembershipDto[] {
  const byPlace = new Map<string, ConsoleMembershipDto>();
  for (const grant of person.grants) {
    const key = `${grant.workspaceId}/${grant.projectId ?? ''}`;
    const role = strongerRole(byPlace.get(key)?.role ?? null, grant.role)!;
    byPlace.set(key, { workspace: grant.workspaceSlug, project: grant.projectSlug, role });
  }
  return [...byPlace.values()].sort((a, b) => `${a.workspace}/${a.project ?? ''}`.localeCompare(`${b.workspace}/${b.project ?? ''}`));
}
