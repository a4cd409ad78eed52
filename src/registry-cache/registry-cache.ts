import { Injectable, Module } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { TtlCache } from '../common/cache/ttl-cache';
import { AppConfig } from '../config/app-config';
import { Change, ChangeNotifier } from '../database/changes';

interface Entry<V> {
  projectId: string;
  value: V;
}

/**
 * Resolved deployments by (project, slug, environment, pinned version). Every registry write
 * publishes a `project` change in its transaction (ChangeNotifier): every instance drops that
 * project's entries when it commits, within milliseconds. REGISTRY_CACHE_TTL_MS (default 2 s) stays
 * the bound when a notification is lost. The writer also calls `invalidateProject` after commit,
 * so on its own instance the change is visible before the response leaves. Misses (null) are
 * cached too, so a flood of calls to an unknown slug does not reach the database each time.
 */
@Injectable()
export class RegistryCache<V = unknown> {
  private readonly cache: TtlCache<string, Entry<V>>;

  constructor(
    config: AppConfig,
    private readonly changes: ChangeNotifier,
  ) {
    this.cache = new TtlCache(config.registryCacheTtlMs);
    changes.subscribe({
      onChange: (change: Change) => {
        if (change.kind === 'project') this.invalidateProject(change.projectId);
      },
      onFlush: () => this.cache.clear(),
    });
  }

  /** Publishes, in `manager`'s transaction, that this project's registry changed (every instance drops it on commit). */
  announce(projectId: string, manager: EntityManager): Promise<void> {
    return this.changes.publish({ kind: 'project', projectId }, manager);
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

  /** The cached value, or `load`'s, one load at a time per key (TtlCache.getOrLoad). */
  async getOrLoad(key: string, projectId: string, load: () => Promise<V>): Promise<V> {
    const entry = await this.cache.getOrLoad(key, async () => ({ projectId, value: await load() }));
    return entry!.value; // an Entry is never null, so it is always stored
  }

  invalidateProject(projectId: string): void {
    this.cache.deleteWhere((entry) => entry.projectId === projectId);
  }
}

/** Its own module, so that credentials and environments can invalidate without depending on the registry. */
@Module({ providers: [RegistryCache], exports: [RegistryCache] })
export class RegistryCacheModule {}
