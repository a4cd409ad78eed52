import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../audit/audit-log';
import { SecretBox, SecretBoxError } from '../common/crypto/secret-box';
import { ApiException, badRequest, conflict, invalidBody, isUniqueViolation, notFound } from '../common/errors';
import { redactBaseUrl } from '../common/http/redact-url';
import { newId } from '../common/ids';
import { isProviderName, PROVIDER_NAME_PATTERN } from '../common/validation/slug';
import { AppConfig } from '../config/app-config';
import { CreateTransaction, plainTransaction } from '../idempotency/create-transaction';
import { describeBindings, destinationOf, isBoundDestination } from '../providers/key-bindings';
import { RegistryCache } from '../registry-cache/registry-cache';
import { apiKeyEnvProblem } from './api-key-env';
import {
  CreateProviderCredentialDto,
  ProviderCredentialBodyDto,
  ProviderCredentialDeletedDto,
  ProviderCredentialDto,
} from './provider-credential.dto';
import { CredentialType, ProviderCredentialEntity } from './provider-credential.entity';
import { ProviderCredentialsRepository } from './provider-credentials.repository';

/** The provider every project has without configuring anything (DESIGN §4.5): not a language model. */
export const LOCAL_PROVIDER = 'local';

const LOCAL_DTO: ProviderCredentialDto = {
  id: null,
  name: LOCAL_PROVIDER,
  type: 'local',
  baseUrl: null,
  apiKeySource: 'none',
  apiKeyEnv: null,
  builtIn: true,
  createdAt: null,
  updatedAt: null,
};

/** The only mapping to the outside: the ciphertext never appears in a DTO. */
export const toCredentialDto = (c: ProviderCredentialEntity): ProviderCredentialDto => ({
  id: c.id,
  name: c.name,
  type: c.type,
  baseUrl: c.baseUrl === null ? null : redactBaseUrl(c.baseUrl),
  apiKeySource: c.apiKeyCiphertext ? 'stored' : c.apiKeyEnv ? 'env' : 'none',
  apiKeyEnv: c.apiKeyEnv,
  builtIn: false,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

/** A provider as parley.yaml declares it: the key only by environment-variable name. */
export interface DeclaredProvider {
  name: string;
  type: CredentialType;
  baseUrl?: string;
  apiKeyEnv?: string;
}

/**
 * Who writes a credential: the operator (the admin key, the CLI on the database), who may lend any
 * of the server's provider keys, or a project key, which may name only variables the operator bound
 * to the credential's host (docs/security.md, "Provider keys from the server's environment").
 */
export type CredentialWriter = 'operator' | 'project';

/** Bound of the decrypted-key memo (one entry per stored key in use). */
const MAX_DECRYPTED_KEYS = 1000;

@Injectable()
export class ProviderCredentialsService {
  private readonly decrypted = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly repo: ProviderCredentialsRepository,
    private readonly box: SecretBox,
    private readonly cache: RegistryCache,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  /** Why a credential may not name this variable (server secret, or outside the operator's prefix); undefined when it may. */
  apiKeyEnvProblem(name: string): string | undefined {
    return apiKeyEnvProblem(name, this.config.providerApiKeyEnvPrefix);
  }

  /**
   * Why this writer may not send `apiKeyEnv`'s key to the host of `baseUrl` (the type's public API
   * without one); undefined when it may. A variable in PROVIDER_KEY_BINDINGS goes to its bound hosts
   * only, whoever writes; one that is not there only where the operator put it.
   */
  bindingProblem(apiKeyEnv: string, type: string, baseUrl: string | null | undefined, writer: CredentialWriter): string | undefined {
    const hosts = this.config.providerKeyBindings.get(apiKeyEnv);
    if (hosts) {
      if (isBoundDestination(this.config.providerKeyBindings, apiKeyEnv, type, baseUrl)) return undefined;
      const destination = destinationOf(type, baseUrl);
      return `apiKeyEnv ${apiKeyEnv} is lent by the operator to ${describeBindings(hosts)} only (PROVIDER_KEY_BINDINGS), not to ${destination ? `${destination.host}:${destination.port}` : 'this baseUrl'}`;
    }
    if (writer === 'operator') return undefined;
    return `apiKeyEnv ${apiKeyEnv} is bound to no host by the operator (PROVIDER_KEY_BINDINGS), so only the admin key may name it; store this project's own key with apiKey instead`;
  }

  /** Whether the server has a value for this variable (apply warns when not). */
  isEnvSet(apiKeyEnv: string): boolean {
    return !this.apiKeyEnvProblem(apiKeyEnv) && !!process.env[apiKeyEnv];
  }

  async list(projectId: string): Promise<ProviderCredentialDto[]> {
    return [LOCAL_DTO, ...(await this.repo.list(projectId)).map(toCredentialDto)];
  }

  /** REST: always a project key (docs/security.md: such a key stores its own key, or names a bound variable). */
  async create(
    projectId: string,
    dto: CreateProviderCredentialDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<ProviderCredentialDto> {
    this.checkBody(dto.name, dto, 'project');
    const now = new Date();
    const entity = Object.assign(new ProviderCredentialEntity(), { projectId, id: newId(), name: dto.name, createdAt: now });
    return this.store(this.fill(entity, dto, now, 'project'), null, tx);
  }

  /**
   * PUT: creates the credential or replaces all its fields (key rotation) in place; its id stays.
   * A concurrent PUT that created it first makes this one a replace (not a 409).
   */
  async replace(projectId: string, name: string, dto: ProviderCredentialBodyDto): Promise<ProviderCredentialDto> {
    this.checkBody(name, dto, 'project');
    for (let attempt = 1; ; attempt++) {
      const existing = await this.repo.findByName(projectId, name);
      if (existing) {
        const before = toCredentialDto(existing);
        return this.store(this.fill(existing, dto, new Date(), 'project'), before);
      }
      try {
        return await this.create(projectId, { ...dto, name });
      } catch (err) {
        if (attempt >= 3 || !(err instanceof ApiException && err.getStatus() === 409)) throw err;
      }
    }
  }

  /** Refused while a current deployment calls the provider: those calls would fail. */
  async delete(projectId: string, name: string): Promise<ProviderCredentialDeletedDto> {
    if (name === LOCAL_PROVIDER) throw conflict('The built-in "local" provider cannot be deleted');
    const existing = isProviderName(name) ? await this.repo.findByName(projectId, name) : null;
    if (!existing) throw notFound('Provider credential not found');
    const users = await this.repo.deployedUsers(projectId, name);
    if (users.length > 0)
      throw conflict(`Provider "${name}" is used by current deployments: ${users.join(', ')}; deploy other versions first`);
    await this.dataSource.transaction(async (manager) => {
      await this.repo.delete(projectId, existing.id, manager);
      await this.recordChange(manager, 'provider.deleted', projectId, name, toCredentialDto(existing), null);
      await this.cache.announce(projectId, manager);
    });
    this.cache.invalidateProject(projectId);
    return { name, object: 'provider_credential.deleted', deleted: true };
  }

  findByName(projectId: string, name: string, manager?: EntityManager): Promise<ProviderCredentialEntity | null> {
    return this.repo.findByName(projectId, name, manager);
  }

  listEntities(projectId: string, manager?: EntityManager): Promise<ProviderCredentialEntity[]> {
    return this.repo.list(projectId, manager);
  }

  /** Whether versions may name this provider in the project. */
  async exists(projectId: string, name: string, manager?: EntityManager): Promise<boolean> {
    return name === LOCAL_PROVIDER || (isProviderName(name) && (await this.repo.findByName(projectId, name, manager)) !== null);
  }

  /** The key at call time: decrypted, or read from the server's environment; undefined when there is none. */
  apiKeyOf(
    credential: Pick<
      ProviderCredentialEntity,
      'projectId' | 'id' | 'type' | 'baseUrl' | 'apiKeyEnv' | 'apiKeyEnvByOperator' | 'apiKeyCiphertext'
    >,
  ): string | undefined {
    if (credential.apiKeyCiphertext) return this.decrypt(credential.apiKeyCiphertext, this.context(credential));
    // Checked again here, not only on input: a row stored before a rule (another prefix, other bindings) must not leak either.
    const { apiKeyEnv } = credential;
    if (!apiKeyEnv || this.apiKeyEnvProblem(apiKeyEnv)) return undefined;
    const writer: CredentialWriter = credential.apiKeyEnvByOperator ? 'operator' : 'project';
    if (this.bindingProblem(apiKeyEnv, credential.type, credential.baseUrl, writer)) return undefined;
    return process.env[apiKeyEnv] || undefined;
  }

  /**
   * Decrypts once per (row, ciphertext) and remembers the result: apiKeyOf runs on every invoke,
   * and AES-GCM setup cost about 30 µs of CPU a call (docs/performance.md). This keeps no key in
   * memory that would not be there anyway: the providers' SDK clients (ClientCache) hold the
   * plaintext key for as long. A changed key is a new ciphertext, hence a new entry; bounded.
   */
  private decrypt(ciphertext: string, context: string): string {
    const memo = `${context}\u0000${ciphertext}`;
    let key = this.decrypted.get(memo);
    if (key === undefined) {
      key = this.box.decrypt(ciphertext, context);
      if (this.decrypted.size >= MAX_DECRYPTED_KEYS) this.decrypted.clear();
      this.decrypted.set(memo, key);
    }
    return key;
  }

  /**
   * parley.yaml's providers: creates or updates type and baseUrl. A declared `apiKeyEnv` replaces
   * whatever key the credential had; without one, a stored key is left as it is (it was set
   * through the REST API, and files do not carry secrets) unless the key's destination changes:
   * a new baseUrl (or type) drops the key, which was meant for the old host. The caller checked
   * `apiKeyEnv` against the bindings (bindingProblem).
   */
  async applyDeclared(
    projectId: string,
    declared: DeclaredProvider,
    manager: EntityManager,
    writer: CredentialWriter,
  ): Promise<'created' | 'updated' | 'unchanged'> {
    const existing = await this.repo.findByName(projectId, declared.name, manager);
    const now = new Date();
    if (!existing) {
      const entity = Object.assign(new ProviderCredentialEntity(), { projectId, id: newId(), name: declared.name, createdAt: now });
      const created = await this.repo.save(this.fill(entity, declared, now, writer), manager);
      await this.recordChange(manager, 'provider.created', projectId, declared.name, null, toCredentialDto(created));
      return 'created';
    }
    const moved = existing.type !== declared.type || existing.baseUrl !== (declared.baseUrl ?? null);
    const apiKeyEnv = declared.apiKeyEnv ?? (moved ? null : existing.apiKeyEnv);
    if (!moved && existing.apiKeyEnv === apiKeyEnv) return 'unchanged';
    const before = toCredentialDto(existing);
    const byOperator = declared.apiKeyEnv ? writer === 'operator' : existing.apiKeyEnvByOperator && apiKeyEnv !== null;
    Object.assign(existing, {
      type: declared.type,
      baseUrl: declared.baseUrl ?? null,
      apiKeyEnv,
      apiKeyEnvByOperator: byOperator,
      updatedAt: now,
    });
    if (declared.apiKeyEnv || moved) existing.apiKeyCiphertext = null;
    const updated = await this.repo.save(existing, manager);
    await this.recordChange(manager, 'provider.updated', projectId, declared.name, before, toCredentialDto(updated));
    return 'updated';
  }

  /** The audit event of a change; the DTO views carry the key's source, never the key. */
  private recordChange(
    manager: EntityManager,
    action: string,
    projectId: string,
    name: string,
    before: ProviderCredentialDto | null,
    after: ProviderCredentialDto | null,
  ) {
    const view = (dto: ProviderCredentialDto | null) =>
      dto ? { name: dto.name, type: dto.type, baseUrl: dto.baseUrl, apiKeySource: dto.apiKeySource, apiKeyEnv: dto.apiKeyEnv } : null;
    return this.audit.record(manager, {
      projectId,
      action,
      resourceType: 'provider',
      resourceId: name,
      before: view(before),
      after: view(after),
    });
  }

  private checkBody(name: string, dto: ProviderCredentialBodyDto, writer: CredentialWriter): void {
    const details: string[] = [];
    // PUT takes the name from the path, where no DTO checked it.
    if (!PROVIDER_NAME_PATTERN.test(name))
      details.push('name: must be 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit');
    else if (name === LOCAL_PROVIDER) details.push('name: "local" is the built-in provider and cannot be configured');
    if (dto.apiKey !== undefined && dto.apiKeyEnv !== undefined) details.push('apiKey: give apiKey or apiKeyEnv, not both');
    else if (dto.apiKeyEnv !== undefined) {
      const problem = this.apiKeyEnvProblem(dto.apiKeyEnv) ?? this.bindingProblem(dto.apiKeyEnv, dto.type, dto.baseUrl, writer);
      if (problem) details.push(problem);
    }
    if (details.length > 0) throw invalidBody(details);
  }

  private fill(
    entity: ProviderCredentialEntity,
    dto: Partial<ProviderCredentialBodyDto> & { type: CredentialType },
    now: Date,
    writer: CredentialWriter,
  ): ProviderCredentialEntity {
    const apiKeyEnv = dto.apiKeyEnv ?? null;
    Object.assign(entity, {
      type: dto.type,
      baseUrl: dto.baseUrl ?? null,
      apiKeyEnv,
      apiKeyEnvByOperator: apiKeyEnv !== null && writer === 'operator',
      updatedAt: now,
    });
    entity.apiKeyCiphertext = dto.apiKey === undefined ? null : this.seal(entity, dto.apiKey);
    return entity;
  }

  private seal(entity: ProviderCredentialEntity, apiKey: string): string {
    try {
      return this.box.encrypt(apiKey, this.context(entity));
    } catch (err) {
      if (err instanceof SecretBoxError) throw badRequest('Invalid request body', [`apiKey: ${err.message}`]);
      throw err;
    }
  }

  /** Binds a ciphertext to its row: copied elsewhere, it does not decrypt. */
  private context(credential: Pick<ProviderCredentialEntity, 'projectId' | 'id'>): string {
    return `provider_credentials/${credential.projectId}/${credential.id}`;
  }

  private async store(
    entity: ProviderCredentialEntity,
    before: ProviderCredentialDto | null = null,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<ProviderCredentialDto> {
    try {
      const saved = await tx.run(async (manager) => {
        const row = await this.repo.save(entity, manager);
        await this.recordChange(
          manager,
          before ? 'provider.updated' : 'provider.created',
          entity.projectId,
          entity.name,
          before,
          toCredentialDto(row),
        );
        await this.cache.announce(entity.projectId, manager);
        return toCredentialDto(row);
      });
      this.cache.invalidateProject(entity.projectId);
      return saved;
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`Provider credential "${entity.name}" already exists`);
      throw err;
    }
  }
}
