/**
 * A bounded map whose entries expire after `ttlMs`: the staleness bound of whatever it caches
 * across instances (an instance that changes the underlying row deletes its own entry at once).
 * Oldest entries are evicted first once `maxEntries` is reached.
 *
 * `getOrLoad` makes one load per key at a time: when an entry expires under load, the calls that
 * miss together share one database read instead of each making their own (docs/performance.md).
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly loading = new Map<K, { promise: Promise<V | null>; generation: number }>();
  /** Bumped by every delete: a load started before an invalidation is neither joined nor stored after it. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /**
   * The cached value, or the one `load` returns, stored unless it is null (what is not stored,
   * e.g. an unknown API key, is not shared with later calls either). Concurrent misses of one key
   * share one load, unless an invalidation came in between.
   */
  getOrLoad(key: K, load: () => Promise<V | null>): Promise<V | null> {
    if (this.ttlMs <= 0) return load(); // caching off: every call reads
    const cached = this.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const pending = this.loading.get(key);
    if (pending && pending.generation === this.generation) return pending.promise;
    const generation = this.generation;
    const promise = load().then(
      (value) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        if (generation === this.generation && value !== null) this.set(key, value);
        return value;
      },
      (err: unknown) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, { promise, generation });
    return promise;
  }

  set(key: K, value: V): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** Drops every entry whose value matches, for invalidation by something other than the key. */
  deleteWhere(predicate: (value: V) => boolean): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
