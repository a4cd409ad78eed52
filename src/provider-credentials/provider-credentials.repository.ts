import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';

import { ProviderCredentialEntity } from './provider-credential.entity';

/** Credential queries, each scoped by project_id. */
@Injectable()
export class ProviderCredentialsRepository {
  constructor(@InjectRepository(ProviderCredentialEntity) private readonly credentials: Repository<ProviderCredentialEntity>) {}

  list(projectId: string, manager?: EntityManager): Promise<ProviderCredentialEntity[]> {
    return this.repo(manager).find({ where: { projectId }, order: { name: 'ASC' } });
  }

  findByName(projectId: string, name: string, manager?: EntityManager): Promise<ProviderCredentialEntity | null> {
    return this.repo(manager).findOne({ where: { projectId, name } });
  }

  save(credential: ProviderCredentialEntity, manager?: EntityManager): Promise<ProviderCredentialEntity> {
    return this.repo(manager).save(credential);
  }

  async delete(projectId: string, id: string, manager?: EntityManager): Promise<void> {
    await this.repo(manager).delete({ projectId, id });
  }

  /** Current deployments whose version calls this provider: `slug (environment)` each. */
  async deployedUsers(projectId: string, name: string, manager?: EntityManager): Promise<string[]> {
    const rows: { slug: string; environment: string }[] = await (manager ?? this.credentials.manager).query(
      `SELECT p.slug, e.slug AS environment
         FROM deployments d
         JOIN prompt_versions v ON v.project_id = d.project_id AND v.id = d.version_id
         JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
         JOIN environments e ON e.project_id = d.project_id AND e.id = d.environment_id
        WHERE d.project_id = $1 AND d.replaced_at IS NULL AND v.provider = $2
        ORDER BY p.slug, e.slug`,
      [projectId, name],
    );
    return rows.map((r) => `${r.slug} (${r.environment})`);
  }

  private repo(manager?: EntityManager): Repository<ProviderCredentialEntity> {
    return manager ? manager.getRepository(ProviderCredentialEntity) : this.credentials;
  }
}
