import { Injectable, Logger } from '@nestjs/common';

import { SecretBoxError } from '../common/crypto/secret-box';
import { serviceError } from '../common/errors';
import { ProviderCredentialEntity } from '../provider-credentials/provider-credential.entity';
import { LOCAL_PROVIDER, ProviderCredentialsService } from '../provider-credentials/provider-credentials.service';
import { RegistryCache } from '../registry-cache/registry-cache';
import { TemplateCache } from '../templates';
import type { Routing } from './content/routing.schema';
import { DeploymentsRepository, ResolutionRow } from './deployments/deployments.repository';
import { PromptArchived } from './prompts/prompt-archived';
import { VersionsRepository } from './prompts/versions.repository';
import { ResolvedDeployment, ResolvedProvider, ResolvedRouting } from './resolved-deployment';
import { isProviderName, isSlugLike } from './slugs';

/** A resolution as cached: everything but the API key, which apiKeyOf supplies per call (apiKeyEnv is read at that moment). */
interface CachedResolution {
  resolved: Omit<ResolvedDeployment, 'provider'>;
  provider: Omit<ResolvedProvider, 'apiKey'>;
  credential: ProviderCredentialEntity | null;
  /** The routing targets' credentials, by position in `resolved.routing.targets`. */
  routingCredentials: (ProviderCredentialEntity | null)[];
}

/** An archived prompt as cached: every resolution of it is refused (PromptArchived) until it is restored. */
interface ArchivedMarker {
  archived: string;
}

type Cached = CachedResolution | ArchivedMarker | null;

/** A cached resolution, or the refusal of an archived prompt's (thrown). */
function resolutionOf(cached: Cached): CachedResolution | null {
  if (cached && 'archived' in cached) throw new PromptArchived(cached.archived);
  return cached;
}

/** A provider as resolutions name it, without its key. */
function providerOf(credential: ProviderCredentialEntity | null): Omit<ResolvedProvider, 'apiKey'> {
  if (!credential) return { name: LOCAL_PROVIDER, type: 'local', credentialId: null };
  return {
    name: credential.name,
    type: credential.type,
    ...(credential.baseUrl ? { baseUrl: credential.baseUrl } : {}),
    credentialId: credential.id,
  };
}

/**
 * The registry's face to invocation: slug + environment (+ pinned version) → what to run.
 * Resolutions are cached in RegistryCache (REGISTRY_CACHE_TTL_MS, default 2 s).
 */
/** The largest PostgreSQL `integer`, the type of version numbers. */
const MAX_VERSION = 2_147_483_647;

@Injectable()
export class RegistryService {
  private readonly logger = new Logger('Registry');

  constructor(
    private readonly deployments: DeploymentsRepository,
    private readonly versions: VersionsRepository,
    private readonly credentials: ProviderCredentialsService,
    private readonly cache: RegistryCache<Cached>,
    private readonly templates: TemplateCache,
  ) {}

  /**
   * The version to run for `slug` in `environment`: the environment's current deployment, or with
   * `version` (the invoke path's `?v=N`) that version number of the prompt, which must exist; a
   * pinned version need not be deployed, but the environment must exist. Null when there is no
   * such prompt, environment, deployment or version. Throws PromptArchived (the invoke surfaces'
   * 404, saying so) for an archived prompt, (502) when the version's provider credential no longer
   * exists, and (500) when a stored key cannot be decrypted.
   */
  async resolveForInvoke(projectId: string, slug: string, environment: string, version?: number): Promise<ResolvedDeployment | null> {
    if (!isSlugLike(slug) || !isSlugLike(environment)) return null;
    // Versions are `integer` columns: a larger number names no version (and would fail the query as out of range).
    if (version !== undefined && !(Number.isSafeInteger(version) && version > 0 && version <= MAX_VERSION)) return null;
    const key = RegistryCache.key(projectId, slug, environment, version);
    // Calls that miss together (an entry expiring under load) share one load.
    const cached = resolutionOf(await this.cache.getOrLoad(key, projectId, () => this.load(projectId, slug, environment, version)));
    return cached && this.withKeys(cached);
  }

  /**
   * Version `version` of `slug`, outside any environment (an experiment runs a version that need not
   * be deployed): null when there is no such prompt or version; PromptArchived for an archived
   * prompt. `environment` of the answer is ''.
   */
  async resolveVersion(projectId: string, slug: string, version: number): Promise<ResolvedDeployment | null> {
    if (!isSlugLike(slug) || !(Number.isSafeInteger(version) && version > 0 && version <= MAX_VERSION)) return null;
    const key = RegistryCache.key(projectId, slug, '', version);
    const cached = resolutionOf(await this.cache.getOrLoad(key, projectId, () => this.load(projectId, slug, null, version)));
    return cached && this.withKeys(cached);
  }

  /** A cached resolution with its providers' keys read now (apiKeyEnv is read at that moment). */
  private withKeys(cached: CachedResolution): ResolvedDeployment {
    const resolved: ResolvedDeployment = { ...cached.resolved, provider: { ...cached.provider, ...this.apiKey(cached.credential) } };
    const routing = cached.resolved.routing;
    if (routing) {
      const targets = routing.targets.map((target, i) => ({
        ...target,
        provider: { ...target.provider, ...this.apiKey(cached.routingCredentials[i]) },
      }));
      resolved.routing = { ...routing, targets };
    }
    return resolved;
  }

  /**
   * A provider called directly (`/v1`'s `<provider>/<model>`): the built-in `local`, or the
   * project's provider credential of that name with its key; null when there is none.
   */
  async resolveProvider(projectId: string, name: string): Promise<ResolvedProvider | null> {
    if (name === LOCAL_PROVIDER) return { name: LOCAL_PROVIDER, type: 'local', credentialId: null };
    const credential = isProviderName(name) ? await this.credentials.findByName(projectId, name) : null;
    if (!credential) return null;
    return { ...providerOf(credential), ...this.apiKey(credential) };
  }

  /** Drops the cached resolutions of a project on this instance (the registry's writers call it). */
  invalidateProject(projectId: string): void {
    this.cache.invalidateProject(projectId);
  }

  private async load(projectId: string, slug: string, environment: string | null, pinned?: number): Promise<Cached> {
    const row = await this.deployments.findResolution(projectId, slug, environment, pinned);
    if (row?.archived) return { archived: row.slug };
    if (!row?.version_id) return null;
    const version = await this.versions.findById(projectId, row.version_id);
    if (!version) return null;
    const credential = version.provider === LOCAL_PROVIDER ? null : await this.credentials.findByName(projectId, version.provider);
    if (version.provider !== LOCAL_PROVIDER && !credential) {
      throw serviceError(
        502,
        'Bad Gateway',
        `Provider "${version.provider}" of ${slug} version ${version.version} is not configured in this project`,
      );
    }
    const provider = providerOf(credential);
    const routed = version.routing ? await this.routingOf(projectId, slug, version.version, version.routing, credential) : null;
    return {
      credential,
      provider,
      routingCredentials: routed?.credentials ?? [],
      resolved: {
        kind: row.kind,
        promptId: row.prompt_id,
        promptSlug: row.slug,
        environment: environment ?? '',
        deploymentId: row.deployment_id,
        deploymentVersion: row.deployment_version === null ? null : Number(row.deployment_version),
        pinned: pinned !== undefined,
        versionId: version.id,
        version: version.version,
        contentHash: version.contentHash,
        template: version.template,
        compiled: this.templates.get(version.id, version.template),
        declaredVariables: await this.declaredOfSplit(projectId, row, version.declaredVariables),
        variableDefaults: version.variables,
        model: version.model,
        parameters: version.parameters,
        tools: version.tools,
        ...(row.split ? { split: { arms: row.split, stickyBy: row.sticky_by ?? 'thread', rules: row.split_rules ?? [] } } : {}),
        ...(routed ? { routing: routed.routing } : {}),
        ...(version.responseCache ? { responseCache: version.responseCache } : {}),
      },
    };
  }

  /**
   * A routing block's targets with their providers (docs/routing.md). The first target is the
   * version's own provider, already loaded. A later target whose provider credential was deleted
   * since the version was saved is left out (with a warning) rather than failing every call.
   */
  private async routingOf(
    projectId: string,
    slug: string,
    version: number,
    routing: Routing,
    primary: ProviderCredentialEntity | null,
  ): Promise<{ routing: ResolvedRouting; credentials: (ProviderCredentialEntity | null)[] }> {
    const targets: ResolvedRouting['targets'] = [];
    const credentials: (ProviderCredentialEntity | null)[] = [];
    for (const [index, target] of routing.targets.entries()) {
      let credential: ProviderCredentialEntity | null = null;
      if (index === 0) credential = primary;
      else if (target.provider !== LOCAL_PROVIDER) {
        credential = await this.credentials.findByName(projectId, target.provider);
        if (!credential) {
          this.logger.warn(
            `${slug} version ${version}: routing target ${index} names provider "${target.provider}", which no longer exists; skipped`,
          );
          continue;
        }
      }
      credentials.push(credential);
      targets.push({
        index,
        provider: providerOf(credential),
        model: target.model,
        weight: target.weight ?? 1,
        parameters: target.parameters ?? {},
      });
    }
    const { strategy, fallbackOn, firstTokenTimeoutMs } = routing;
    return { routing: { strategy, targets, fallbackOn, ...(firstTokenTimeoutMs ? { firstTokenTimeoutMs } : {}) }, credentials };
  }

  /**
   * A split's calls are checked against the variables of every arm (the arm is chosen after the
   * request is read, docs/experiments.md "Splits"); a plain deployment's, against its version's.
   */
  private async declaredOfSplit(projectId: string, row: ResolutionRow, own: string[]): Promise<string[]> {
    if (!row.split) return own;
    const names = new Set(own);
    const arms = await this.versions.findByNumbers(
      projectId,
      row.prompt_id,
      row.split.map((arm) => arm.version),
    );
    for (const version of arms) for (const name of version.declaredVariables) names.add(name);
    return [...names].sort();
  }

  private apiKey(credential: ProviderCredentialEntity | null): { apiKey?: string } {
    if (!credential) return {};
    try {
      const apiKey = this.credentials.apiKeyOf(credential);
      return apiKey === undefined ? {} : { apiKey };
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      this.logger.error(`provider credential "${credential.name}" of project ${credential.projectId}: ${err.message}`);
      throw serviceError(
        500,
        'Internal Server Error',
        `The API key of provider "${credential.name}" cannot be read; check PARLEY_SECRET_KEY`,
      );
    }
  }
}
