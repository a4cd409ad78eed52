import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';

import { ProjectEntity } from './project.entity';
import { WorkspaceEntity } from './workspace.entity';

export interface ProjectWithWorkspace {
  project: ProjectEntity;
  workspace: WorkspaceEntity;
}

@Injectable()
export class WorkspacesRepository {
  constructor(
    @InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>,
    @InjectRepository(ProjectEntity) private readonly projects: Repository<ProjectEntity>,
  ) {}

  findWorkspace(slug: string, manager?: EntityManager): Promise<WorkspaceEntity | null> {
    return this.repo(WorkspaceEntity, manager).findOne({ where: { slug } });
  }

  listWorkspaces(): Promise<WorkspaceEntity[]> {
    return this.workspaces.find({ order: { slug: 'ASC' } });
  }

  countWorkspaces(manager?: EntityManager): Promise<number> {
    return this.repo(WorkspaceEntity, manager).count();
  }

  findProject(workspaceId: string, slug: string, manager?: EntityManager): Promise<ProjectEntity | null> {
    return this.repo(ProjectEntity, manager).findOne({ where: { workspaceId, slug } });
  }

  async findProjectBySlugs(workspaceSlug: string, projectSlug: string, manager?: EntityManager): Promise<ProjectWithWorkspace | null> {
    const workspace = await this.findWorkspace(workspaceSlug, manager);
    if (!workspace) return null;
    const project = await this.findProject(workspace.id, projectSlug, manager);
    return project ? { project, workspace } : null;
  }

  listProjects(workspaceId: string): Promise<ProjectEntity[]> {
    return this.projects.find({ where: { workspaceId }, order: { slug: 'ASC' } });
  }

  insertWorkspace(workspace: WorkspaceEntity, manager?: EntityManager): Promise<WorkspaceEntity> {
    return this.repo(WorkspaceEntity, manager).save(workspace);
  }

  insertProject(project: ProjectEntity, manager?: EntityManager): Promise<ProjectEntity> {
    return this.repo(ProjectEntity, manager).save(project);
  }

  private repo<T extends object>(entity: new () => T, manager?: EntityManager): Repository<T> {
    return (manager ?? this.workspaces.manager).getRepository(entity);
  }
}
