import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { notFound } from '../../common/errors';
import { isSlugLike } from '../../common/validation/slug';
import { EnvironmentGateDto, PutGateBody } from './environment-gate.dto';
import { EnvironmentGates } from './environment-gates';
import { EnvironmentsRepository } from './environments.repository';

/** The deploy gate routes of an environment (docs/evals.md, "The deploy gate"); every change is audited. */
@Injectable()
export class EnvironmentGateService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly environments: EnvironmentsRepository,
    private readonly gates: EnvironmentGates,
    private readonly audit: AuditLog,
  ) {}

  async get(projectId: string, slug: string): Promise<EnvironmentGateDto> {
    const environment = await this.require(projectId, slug);
    const gate = await this.gates.get(projectId, environment.id);
    if (!gate) throw notFound('This environment has no deploy gate');
    return { environment: slug, ...gate };
  }

  async put(projectId: string, slug: string, body: PutGateBody): Promise<EnvironmentGateDto> {
    return this.dataSource.transaction(async (manager) => {
      const environment = await this.require(projectId, slug, manager);
      const before = await this.gates.get(projectId, environment.id, manager);
      await this.gates.put(manager, projectId, environment.id, body);
      await this.audit.record(manager, {
        projectId,
        action: 'environment.gate_set',
        resourceType: 'environment',
        resourceId: slug,
        before: before ? { ...before } : null,
        after: { dataset: body.dataset, minScores: body.minScores },
      });
      return { environment: slug, dataset: body.dataset, minScores: body.minScores };
    });
  }

  async remove(projectId: string, slug: string): Promise<{ environment: string; deleted: true }> {
    await this.dataSource.transaction(async (manager) => {
      const environment = await this.require(projectId, slug, manager);
      const before = await this.gates.get(projectId, environment.id, manager);
      await this.gates.remove(manager, projectId, environment.id);
      await this.audit.record(manager, {
        projectId,
        action: 'environment.gate_removed',
        resourceType: 'environment',
        resourceId: slug,
        before: before ? { ...before } : null,
      });
    });
    return { environment: slug, deleted: true };
  }

  private async require(projectId: string, slug: string, manager?: Parameters<EnvironmentsRepository['findBySlug']>[2]) {
    const environment = isSlugLike(slug) ? await this.environments.findBySlug(projectId, slug, manager) : null;
    if (!environment) throw notFound('Environment not found');
    return environment;
  }
}
