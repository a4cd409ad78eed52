import { Injectable, Module } from '@nestjs/common';
import { TtlCache } from '../common/cache/ttl-cache';
import { AppConfig } from '../config/app-config';

interface Entry<V> {
  projectId: string;
  value: V;
}

/**
 * Resolved deployments by (project, slug, environment, pinned version), kept for
 * REGISTRY_CACHE_TTL_MS (default 2 s): a deployment made on another instance takes effect there
 * within that bound. Every registry write calls `invalidateProject` after it commits, so on the
 * instance that made it the change is visible at once. Misses (null) are cached too, so a flood
 * of calls to an unknown slug does not reach the database each time.
 */
@Injectable()
export class RegistryCache<V = unknown> {
  private readonly cache: TtlCache<string, Entry<V>>;

  constructor(config: AppConfig) {
    this.cache = new TtlCache(config.registryCacheTtlMs);
  }

  static key(projectId: string, slug: string, environment: string, version?: number): string {
    return [projectId, slug, environment, version ?? ''].join('\u0000');
  }

  get(key: string): Entry<V> | undefined {
    return this.cache.get(key);
  }

  set(key: string, projectId: string, value: V): void {
    this.cache.set(key, { projectId, value });
  }

  invalidateProject(projectId: string): void {
    this.cache.deleteWhere((entry) => entry.projectId === projectId);
  }
}

/** Its own module, so that credentials and environments can invalidate without depending on the registry. */
@Module({ providers: [RegistryCache], exports: [RegistryCache] })
export class RegistryCacheModule {}
