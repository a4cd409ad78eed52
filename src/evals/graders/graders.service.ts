import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';

import { AuditLog } from '../../audit/audit-log';
import { ProjectPrincipal } from '../../auth/principal';
import { invalidBody, notFound } from '../../common/errors';
import { newId } from '../../common/ids';
import { isSlugLike } from '../../common/validation/slug';
import { type Check, checkProblem } from './checks';
import { putGraderSchema } from './grader.dto';
import { GraderDeletedDto, GraderDto, GraderListDto } from './grader.dto';
import { defaultThreshold, GraderConfig, GraderSpec } from './grader.schema';
import { GraderRow, GradersRepository } from './graders.repository';

const toDto = (row: GraderRow): GraderDto => ({
  id: row.id,
  object: 'grader',
  name: row.name,
  type: row.type,
  threshold: Number(row.threshold),
  config: row.config as unknown as Record<string, unknown>,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

/** The problems of a check that its schema cannot see (a pattern RE2 refuses, a JSON Schema Ajv cannot compile). */
export function configProblems(config: GraderConfig, path = 'config'): string[] {
  if (config.type === 'model') return [];
  const problem = checkProblem(config as Check);
  return problem ? [`${path}: ${problem}`] : [];
}

/** Named graders per project (docs/evals.md, "Graders"); a run copies the ones it uses, so later edits do not change it. */
@Injectable()
export class GradersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly graders: GradersRepository,
    private readonly audit: AuditLog,
  ) {}

  /** `caller`: only its project is used, so parley apply passes `{projectId}` with its transaction's `manager`. */
  async put(
    caller: Pick<ProjectPrincipal, 'projectId'>,
    name: string,
    body: z.output<typeof putGraderSchema>,
    manager?: EntityManager,
  ): Promise<{ grader: GraderDto; created: boolean }> {
    if (!isSlugLike(name)) throw invalidBody(['name: expected a grader name: 1-64 lower-case letters, digits, "-" or "_"']);
    const problems = configProblems(body.config);
    if (problems.length) throw invalidBody(problems);
    const write = async (m: EntityManager) => {
      const { row, created } = await this.graders.upsert(m, caller.projectId, {
        id: newId(),
        name,
        type: body.config.type,
        config: body.config,
        threshold: body.threshold ?? defaultThreshold(body.config),
      });
      await this.audit.record(m, {
        projectId: caller.projectId,
        action: created ? 'grader.created' : 'grader.updated',
        resourceType: 'grader',
        resourceId: name,
        after: { type: row.type, threshold: row.threshold, config: row.config },
      });
      return { grader: toDto(row), created };
    };
    return manager ? write(manager) : this.dataSource.transaction(write);
  }

  async list(caller: ProjectPrincipal): Promise<GraderListDto> {
    return { object: 'list', data: (await this.graders.list(caller.projectId)).map(toDto) };
  }

  async get(caller: ProjectPrincipal, name: string): Promise<GraderDto> {
    const [row] = isSlugLike(name) ? await this.graders.findByNames(caller.projectId, [name]) : [];
    if (!row) throw notFound('Grader not found');
    return toDto(row);
  }

  async remove(caller: ProjectPrincipal, name: string): Promise<GraderDeletedDto> {
    await this.dataSource.transaction(async (manager) => {
      const row = isSlugLike(name) ? await this.graders.remove(manager, caller.projectId, name) : null;
      if (!row) throw notFound('Grader not found');
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'grader.deleted',
        resourceType: 'grader',
        resourceId: name,
        before: { type: row.type },
      });
    });
    return { name, object: 'grader', deleted: true };
  }

  /** The named graders as a run uses them; every missing name is reported at once. */
  async specsOf(projectId: string, names: string[]): Promise<GraderSpec[]> {
    const rows = await this.graders.findByNames(projectId, names);
    const missing = names.filter((name) => !rows.some((row) => row.name === name));
    if (missing.length) throw invalidBody(missing.map((name) => `graders: no grader named "${name}" in this project`));
    return rows.map((row) => ({ name: row.name, threshold: Number(row.threshold), config: row.config }));
  }

  allRows(projectId: string, manager?: EntityManager): Promise<GraderRow[]> {
    return this.graders.list(projectId, manager);
  }
}
